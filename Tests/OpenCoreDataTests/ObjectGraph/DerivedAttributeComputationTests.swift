import Foundation
import Testing
@testable import OpenCoreData

@Suite("Derived attributes")
struct DerivedAttributeTests {
    static func model() -> NSManagedObjectModel {
        let book = TestModels.entity("Book", [TestModels.attribute("title", .stringAttributeType)])
        let page = TestModels.entity("Page", [TestModels.attribute("number", .integer32AttributeType)])
        let searchTitle = NSDerivedAttributeDescription()
        searchTitle.name = "searchTitle"
        searchTitle.attributeType = .stringAttributeType
        searchTitle.derivationExpression = NSExpression(format: "canonical:(title)")
        let pageCount = NSDerivedAttributeDescription()
        pageCount.name = "pagesCount"
        pageCount.attributeType = .integer64AttributeType
        pageCount.derivationExpression = NSExpression(format: "pages.@count")
        let pages = TestModels.relationship("pages", to: page, toMany: true)
        let owner = TestModels.relationship("book", to: book, toMany: false)
        TestModels.inverse(pages, owner)
        book.properties += [searchTitle, pageCount, pages]
        page.properties += [owner]
        let model = NSManagedObjectModel()
        model.entities = [book, page]
        return model
    }

    @Test("Derived values are computed on save and follow changes", arguments: ["memory", "sqlite"])
    func computed(store: String) throws {
        let context = store == "sqlite" ? try TestModels.sqliteContext(Self.model()) : try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("Éléments de Géométrie", forKey: "title")
            for number in 1...3 {
                NSEntityDescription.insertNewObject(forEntityName: "Page", into: context).setValue(book, forKey: "book")
                _ = number
            }
            try context.save()
            #expect(book.value(forKey: "searchTitle") as? String == "elements de geometrie")
            #expect(book.value(forKey: "pagesCount") as? Int == 3)
            NSEntityDescription.insertNewObject(forEntityName: "Page", into: context).setValue(book, forKey: "book")
            try context.save()
            context.reset()
            let reloaded = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
            #expect(reloaded.value(forKey: "pagesCount") as? Int == 4)
            #expect(reloaded.value(forKey: "searchTitle") as? String == "elements de geometrie")
        }
    }
}
