import Foundation
import OpenCoreData

// A model built in code, an in-memory stack, and the everyday Core Data calls.
let model = NSManagedObjectModel()
let todo = NSEntityDescription()
todo.name = "Todo"
let title = NSAttributeDescription()
title.name = "title"
title.attributeType = .stringAttributeType
title.isOptional = false
let done = NSAttributeDescription()
done.name = "done"
done.attributeType = .booleanAttributeType
done.defaultValue = false
todo.properties = [title, done]
model.entities = [todo]

let container = NSPersistentContainer(name: "Example", managedObjectModel: model)
container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
container.loadPersistentStores { _, error in
    if let error { fatalError("Could not load the store: \(error)") }
}

let context = container.newBackgroundContext()
context.performAndWait {
    for name in ["Buy milk", "Write tests", "Ship it"] {
        let item = NSEntityDescription.insertNewObject(forEntityName: "Todo", into: context)
        item.setValue(name, forKey: "title")
    }
    do {
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Todo")
        for item in try context.fetch(request) {
            print("- [\((item.value(forKey: "done") as? Bool) == true ? "x" : " ")] \(item.value(forKey: "title") ?? "")")
        }
        print("\(try context.count(for: request)) to-dos saved.")
    } catch {
        print("Error: \(error)")
    }
}
