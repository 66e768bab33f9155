import TodoApp

await TodoCommand.main()
