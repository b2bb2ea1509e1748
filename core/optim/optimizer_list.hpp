// The one list of optimizers. optimizer_table() is generated from it (optimizer_table.cpp); each
// line is IPUTRAIN_OPTIMIZER(Name): the definition kNameOptimizer in its own file of this folder,
// which says everything else (name, hyper-parameters, state per weight, kernel). Adding an
// optimizer is that file and a line here (CMake globs core/optim/*.cpp).
//
// The order is `optimizer.type`'s in the config reference, and the hyper-parameter keys follow
// the order in which the list first names them; nothing serialises a position (configs and
// checkpoints use names).
//
// Included several times with different definitions of IPUTRAIN_OPTIMIZER: no include guard.

IPUTRAIN_OPTIMIZER(Sgd)
IPUTRAIN_OPTIMIZER(Momentum)
IPUTRAIN_OPTIMIZER(Adam)
IPUTRAIN_OPTIMIZER(AdamW)
IPUTRAIN_OPTIMIZER(Lamb)
IPUTRAIN_OPTIMIZER(RmsProp)
IPUTRAIN_OPTIMIZER(Adagrad)
IPUTRAIN_OPTIMIZER(Lion)
IPUTRAIN_OPTIMIZER(Adafactor)
IPUTRAIN_OPTIMIZER(Lars)
