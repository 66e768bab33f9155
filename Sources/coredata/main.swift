import CoreDataTool

CoreDataCommand.main()
