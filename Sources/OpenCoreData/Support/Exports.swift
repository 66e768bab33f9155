// Core Data's module re-exports Foundation, and so does OpenCoreData: a file that imports only
// OpenCoreData sees Foundation, and OpenCoreData's NSPredicate, NSExpression and NSSortDescriptor
// win over Foundation's unavailable ones in type annotations (see docs/Deviations.md).
@_exported import Foundation
