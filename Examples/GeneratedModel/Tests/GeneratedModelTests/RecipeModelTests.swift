import OpenCoreData
import RecipeModel
import Testing

/// The generated code for inheritance, an ordered to-many, every attribute type and the
/// "Category/Extension" setting, used through the in-memory store.
@Suite("Generated Recipe, Item, Step and Ingredient")
struct RecipeModelTests {
    @Test("Attributes of every type keep their values through a save and a fresh context", arguments: StoreKind.allCases)
    func attributeTypes(_ store: StoreKind) throws {
        let storeURL = try store.newStoreURL()
        defer { if let storeURL { try? FileManager.default.removeItem(at: storeURL.deletingLastPathComponent()) } }
        let container = try RecipeStore.makeContainer(storeURL: storeURL)
        let context = container.newBackgroundContext()
        let id = UUID()
        let link = try #require(URL(string: "https://example.com/pancakes"))
        try context.performAndWait {
            let recipe = Recipe(context: context)
            #expect(recipe.servings == 1, "scalar default from the model")
            #expect(recipe.calories == nil, "a number that isn't scalar is an optional NSNumber")
            #expect(recipe.price == NSDecimalNumber(value: 0), "decimal default")
            recipe.name = "Pancakes"
            recipe.createdAt = Date(timeIntervalSinceReferenceDate: 1_000)
            recipe.link = link
            recipe.rating = 4.5
            recipe.uuid = id
            recipe.calories = NSNumber(value: 520)
            recipe.isFavorite = true
            recipe.keywords = ["breakfast", "sweet"]
            recipe.notes = NSString(string: "flip once")
            recipe.photo = Data([0xFF, 0xD8])
            recipe.price = NSDecimalNumber(string: "3.25")
            recipe.servings = 4
            recipe.views = 1 << 40
            recipe.weight = 0.5
            try context.save()
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let request: NSFetchRequest<Recipe> = Recipe.fetchRequest()
            let recipe = try #require(try reader.fetch(request).first)
            #expect(recipe.name == "Pancakes")
            #expect(recipe.createdAt == Date(timeIntervalSinceReferenceDate: 1_000))
            #expect(recipe.link == link)
            #expect(recipe.rating == 4.5)
            #expect(recipe.uuid == id)
            #expect(recipe.calories?.intValue == 520)
            #expect(recipe.isFavorite)
            #expect(recipe.keywords == ["breakfast", "sweet"])
            #expect(recipe.photo == Data([0xFF, 0xD8]))
            #expect(recipe.price == NSDecimalNumber(string: "3.25"))
            #expect(recipe.servings == 4)
            #expect(recipe.views == 1 << 40)
            #expect(recipe.weight == 0.5)
            #expect(recipe.notes == nil, "transient values aren't saved")

            // The parent entity's request finds the subentity's objects, as Item instances.
            let items = try reader.fetch(Item.fetchRequest() as NSFetchRequest<Item>)
            #expect(items.count == 1)
            #expect(items.first is Recipe)
            recipe.calories = nil
            #expect(recipe.calories == nil)
        }
    }

    @Test("The ordered to-many accessors keep order and maintain the inverse", arguments: StoreKind.allCases)
    func orderedAccessors(_ store: StoreKind) throws {
        let storeURL = try store.newStoreURL()
        defer { if let storeURL { try? FileManager.default.removeItem(at: storeURL.deletingLastPathComponent()) } }
        let container = try RecipeStore.makeContainer(storeURL: storeURL)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let recipe = Recipe(context: context)
            let steps = (0..<6).map { number in
                let step = Step(context: context)
                step.text = "step \(number)"
                step.minutes = Int32(number)
                return step
            }
            func texts() -> [String] {
                (recipe.steps?.array as? [Step] ?? []).map { $0.text ?? "?" }
            }
            recipe.addToSteps(steps[0])
            recipe.addToSteps(NSOrderedSet(array: [steps[1], steps[2]]))
            #expect(texts() == ["step 0", "step 1", "step 2"])
            recipe.insertIntoSteps(steps[3], at: 0)
            #expect(texts() == ["step 3", "step 0", "step 1", "step 2"])
            #expect(steps[3].recipe === recipe, "inserting sets the inverse")
            recipe.insertIntoSteps([steps[4], steps[5]], at: NSIndexSet(indexesIn: NSRange(location: 1, length: 2)))
            #expect(texts() == ["step 3", "step 4", "step 5", "step 0", "step 1", "step 2"])
            recipe.removeFromSteps(at: 0)
            #expect(texts() == ["step 4", "step 5", "step 0", "step 1", "step 2"])
            #expect(steps[3].recipe == nil, "removing clears the inverse")
            recipe.removeFromSteps(at: NSIndexSet(indexesIn: NSRange(location: 0, length: 2)))
            #expect(texts() == ["step 0", "step 1", "step 2"])
            recipe.replaceSteps(at: 1, with: steps[3])
            #expect(texts() == ["step 0", "step 3", "step 2"])
            #expect(steps[1].recipe == nil)
            recipe.replaceSteps(at: NSIndexSet(index: 0), with: [steps[4]])
            #expect(texts() == ["step 4", "step 3", "step 2"])
            recipe.removeFromSteps(steps[3])
            recipe.removeFromSteps(NSOrderedSet(array: [steps[2]]))
            #expect(texts() == ["step 4"])
            recipe.addToSteps(NSOrderedSet(array: [steps[0], steps[1]]))
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(Recipe.fetchRequest() as NSFetchRequest<Recipe>).first)
            #expect((fetched.steps?.array as? [Step])?.map(\.minutes) == [4, 0, 1])
        }
    }

    @Test("Category/Extension adds properties to a handwritten class; Manual/None adds nothing", arguments: StoreKind.allCases)
    func codegenSettings(_ store: StoreKind) throws {
        let storeURL = try store.newStoreURL()
        defer { if let storeURL { try? FileManager.default.removeItem(at: storeURL.deletingLastPathComponent()) } }
        let container = try RecipeStore.makeContainer(storeURL: storeURL)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let flour = Ingredient(context: context)
            flour.name = "flour"
            #expect(flour.displayName == "Flour")
            let recipe = Recipe(context: context)
            recipe.addToIngredients(flour)
            #expect(flour.recipes?.count == 1)
            flour.removeFromRecipes(NSSet(object: recipe))
            #expect(recipe.ingredients?.count == 0)
            let note = Note(context: context)
            note.text = "hand-written"
            try context.save()
            let notes = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))
            #expect(notes.first?.text == "hand-written")
        }
    }
}
