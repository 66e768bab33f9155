import Foundation
import ModelLookupProbe
import OpenCoreData

// Its own target holds a model named Todo, like the example app's model beside it.
// With --bundle-idiom it loads the model the way most apps do (issue 38 point 2), with
// `Bundle.module` where Apple code writes `Bundle.main`: the build plugin compiled
// Todo.xcdatamodeld to Todo.momd in this target's resource bundle.
if CommandLine.arguments.contains("--bundle-idiom") {
    guard let url = Bundle.module.url(forResource: "Todo", withExtension: "momd"),
          let model = NSManagedObjectModel(contentsOf: url)
    else {
        FileHandle.standardError.write(Data("no Todo.momd in Bundle.module\n".utf8))
        exit(3)
    }
    let container = NSPersistentContainer(name: "Todo", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
    var failure: Error?
    container.loadPersistentStores { _, error in failure = error }
    if let failure {
        FileHandle.standardError.write(Data("load failed: \(failure)\n".utf8))
        exit(4)
    }
    let context = container.viewContext
    let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
    note.setValue("hello", forKey: "text")
    do {
        try context.save()
        let count = try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Note"))
        let merged = NSManagedObjectModel.mergedModel(from: [Bundle.module])?.entities.compactMap(\.name).sorted() ?? []
        let mainURL = Bundle.main.url(forResource: "Todo", withExtension: "momd")
        print("momd: \(url.lastPathComponent) notes: \(count) merged: \(merged.joined(separator: ",")) main: \(mainURL == nil ? "nil" : "found")")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("save failed: \(error)\n".utf8))
        exit(5)
    }
}
ModelLookupProbe.run(linked: [])
