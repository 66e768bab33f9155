import Foundation
import OpenCoreData

// Foundation on Linux declares these names too (marked unavailable); the tool means OpenCoreData's.
typealias NSPredicate = OpenCoreData.NSPredicate
typealias NSSortDescriptor = OpenCoreData.NSSortDescriptor
typealias NSExpression = OpenCoreData.NSExpression
