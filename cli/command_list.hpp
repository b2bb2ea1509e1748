// The one list of iputrain's commands. command_table() is generated from it (command_table.cpp);
// each line is IPUTRAIN_COMMAND(Name): the definition kNameCommand (cli/command.hpp) in the
// command's own file, cli/name_command.cpp (the REPL's in cli/repl/repl.cpp), which says everything
// else (name, help line, arguments, options, what runs it). Adding a command is that file and a
// line here (cli/CMakeLists.txt globs cli/*_command.cpp).
//
// The order is `iputrain --help`'s. The REPL's own commands are a table of their own
// (cli/repl/commands.cpp).
//
// Included several times with different definitions of IPUTRAIN_COMMAND: no include guard.

IPUTRAIN_COMMAND(Train)
IPUTRAIN_COMMAND(Export)
IPUTRAIN_COMMAND(Inspect)
IPUTRAIN_COMMAND(Eval)
IPUTRAIN_COMMAND(Predict)
IPUTRAIN_COMMAND(BenchData)
IPUTRAIN_COMMAND(Check)
IPUTRAIN_COMMAND(Plan)
IPUTRAIN_COMMAND(Repl)
IPUTRAIN_COMMAND(Config)
IPUTRAIN_COMMAND(Tune)
IPUTRAIN_COMMAND(Verify)
