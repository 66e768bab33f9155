import Foundation
@testable import OpenCoreData

/// Models of fixture stores built in code, so the store's schema and hash tests do not depend
/// on the model-file loader (`FixtureStoreRowTests` loads the `.xcdatamodel` files themselves).
enum FixtureModels {
    private typealias T = TestModels

    /// arnosolo-blog `demo5_todo_list.xcdatamodel`, attribute for attribute (the seed to-do model).
    static func arnosoloTodo() -> NSManagedObjectModel {
        let location = T.entity("LocationEntity", [
            T.attribute("altitude", .doubleAttributeType, defaultValue: 0.0), T.attribute("id", .stringAttributeType),
            T.attribute("latitude", .doubleAttributeType, defaultValue: 0.0), T.attribute("longitude", .doubleAttributeType, defaultValue: 0.0),
            T.attribute("placeName", .stringAttributeType),
        ])
        let tag = T.entity("TagEntity", [
            T.attribute("completedAt", .dateAttributeType), T.attribute("createdAt", .dateAttributeType),
            T.attribute("tagId", .stringAttributeType), T.attribute("title", .stringAttributeType), T.attribute("updatedAt", .dateAttributeType),
        ])
        let todo = T.entity("TodoEntity", [
            T.attribute("completedAt", .dateAttributeType), T.attribute("createdAt", .dateAttributeType),
            T.attribute("title", .stringAttributeType), T.attribute("todoId", .stringAttributeType), T.attribute("updatedAt", .dateAttributeType),
        ])
        let locationTodos = T.relationship("todos", to: todo, toMany: true)
        let todoLocation = T.relationship("location", to: location, toMany: false)
        T.inverse(locationTodos, todoLocation)
        let tagTodos = T.relationship("todos", to: todo, toMany: true)
        let todoTags = T.relationship("tags", to: tag, toMany: true)
        T.inverse(tagTodos, todoTags)
        location.properties += [locationTodos]
        tag.properties += [tagTodos]
        todo.properties += [todoLocation, todoTags]
        let model = NSManagedObjectModel()
        model.entities = [location, tag, todo]
        return model
    }

    /// CoreDataPlus `SampleModel.xcdatamodel` (store `SampleModel_V1.sqlite`): Car → SportCar → ExpensiveSportCar, Person.
    static func coreDataPlusSampleModelV1() -> NSManagedObjectModel {
        let color = T.attribute("color", .transformableAttributeType)
        color.valueTransformerName = "ColorTransformer"
        let car = T.entity("Car", [
            color, T.attribute("currentDrivingSpeed", .integer64AttributeType, defaultValue: 0, transient: true),
            T.attribute("maker", .stringAttributeType), T.attribute("markedForDeletionAsOf", .dateAttributeType),
            T.attribute("model", .stringAttributeType), T.attribute("numberPlate", .stringAttributeType, optional: false),
        ])
        car.uniquenessConstraints = [["numberPlate"]]
        let expensive = T.entity("ExpensiveSportCar", [T.attribute("isLimitedEdition", .booleanAttributeType, defaultValue: false)])
        let id = T.attribute("id", .UUIDAttributeType, optional: false)
        id.preservesValueInHistoryOnDeletion = true
        let person = T.entity("Person", [
            T.attribute("firstName", .stringAttributeType), id,
            T.attribute("isDriving", .booleanAttributeType, optional: false, defaultValue: false, transient: true),
            T.attribute("lastName", .stringAttributeType), T.attribute("updatedAt", .dateAttributeType, optional: false),
        ])
        person.uniquenessConstraints = [["firstName", "lastName"]]
        let sport = T.entity("SportCar", [])
        let owner = T.relationship("owner", to: person, toMany: false)
        let cars = T.relationship("cars", to: car, toMany: true)
        T.inverse(owner, cars)
        car.properties += [owner]
        person.properties += [cars]
        car.subentities = [sport]
        sport.subentities = [expensive]
        let model = NSManagedObjectModel()
        model.entities = [car, expensive, person, sport]
        model.versionIdentifiers = ["1"]
        return model
    }

    /// CoreDataPlus-2018 `SampleModel3.xcdatamodel` (store `SampleModelV2.sqlite`), with the join table `Z_1PREVIOUSOWNERS`.
    static func coreDataPlus2018SampleModel3() -> NSManagedObjectModel {
        let car = T.entity("Car", [
            T.attribute("markedForDeletionAsOf", .dateAttributeType), T.attribute("model", .stringAttributeType),
            T.attribute("numberPlate", .stringAttributeType, optional: false),
        ])
        car.uniquenessConstraints = [["numberPlate"]]
        let luxury = T.entity("LuxuryCar", [T.attribute("isLimitedEdition", .booleanAttributeType, defaultValue: false)])
        luxury.renamingIdentifier = "ExpensiveSportCar"
        let maker = T.entity("Maker", [T.attribute("name", .stringAttributeType, optional: false)])
        maker.uniquenessConstraints = [["name"]]
        let person = T.entity("Person", [
            T.attribute("firstName", .stringAttributeType), T.attribute("lastName", .stringAttributeType),
            T.attribute("updatedAt", .dateAttributeType, optional: false),
        ])
        person.uniquenessConstraints = [["firstName", "lastName"]]
        let sport = T.entity("SportCar", [])
        let createdBy = T.relationship("createdBy", to: maker, toMany: false)
        let makerCars = T.relationship("cars", to: car, toMany: true)
        T.inverse(createdBy, makerCars)
        let owner = T.relationship("owner", to: person, toMany: false)
        let personCars = T.relationship("cars", to: car, toMany: true)
        T.inverse(owner, personCars)
        let previousOwners = T.relationship("previousOwners", to: person, toMany: true)
        let previousCars = T.relationship("previousCars", to: car, toMany: true)
        T.inverse(previousOwners, previousCars)
        car.properties += [createdBy, owner, previousOwners]
        maker.properties += [makerCars]
        person.properties += [personCars, previousCars]
        car.subentities = [sport]
        sport.subentities = [luxury]
        let model = NSManagedObjectModel()
        model.entities = [car, luxury, maker, person, sport]
        model.versionIdentifiers = ["3"]
        return model
    }
}
