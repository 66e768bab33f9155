import TodoApp

await TodoCommand.runFromCommandLine()
