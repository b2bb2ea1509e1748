// The one list of learning-rate schedules. lr_schedule_table() is generated from it
// (lr_schedule.cpp); each line is IPUTRAIN_LR_SCHEDULE(Name): the definition kNameSchedule in its own
// file of this folder (lr_<name>.cpp), which says everything else. Adding a schedule is that file
// and a line here (CMake globs core/optim/*.cpp). The order is `optimizer.lr_schedule`'s spellings'.
//
// Included several times with different definitions of IPUTRAIN_LR_SCHEDULE: no include guard.

IPUTRAIN_LR_SCHEDULE(Constant)
IPUTRAIN_LR_SCHEDULE(Step)
IPUTRAIN_LR_SCHEDULE(Exponential)
IPUTRAIN_LR_SCHEDULE(Cosine)
IPUTRAIN_LR_SCHEDULE(Linear)
