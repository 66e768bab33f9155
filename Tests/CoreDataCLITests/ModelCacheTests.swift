import Foundation
import Testing
@testable import CoreDataTool

/// Stores OpenCoreData creates carry their model in `Z_MODELCACHE`, as Apple's do, so the
/// inspection commands need no `--model` for them.
@Suite("Model cache of stores OpenCoreData writes")
struct ModelCacheTests {
    @Test("store info reads a store OpenCoreData created without --model, from its Z_MODELCACHE, and finds it compatible")
    func storeInfoWithoutModel() throws {
        let store = try TestModel.importedLibrary().store

        let info = try StoreInfo.read(path: store, modelPath: nil)
        #expect(info.modelProblem == nil, "\(info.modelProblem ?? "")")
        #expect(info.modelSource?.contains("Z_MODELCACHE") == true)
        #expect(info.isCompatible == true, "\(info.entities.map { "\($0.name) \(String(describing: $0.compatibility))" })")
        #expect(info.entities.filter { !$0.isInternal }.map(\.name).sorted() == ["Author", "Book", "Tag"])

        let result = Harness.run(["store", "info", store])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("Compatible: yes"), "\(result.out)")
    }
}
