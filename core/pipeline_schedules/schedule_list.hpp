// The one list of pipeline schedules. ScheduleKind, the kXxxSchedule declarations and
// schedule_table() are generated from it (schedule_def.hpp, schedule_table.cpp); each line is
// IPUTRAIN_SCHEDULE(Kind): Kind names ScheduleKind::Kind and the definition kKindSchedule in its
// own file of this folder, which says everything else (name, rules, timeline, bubble, memory).
// Adding a schedule is that file and a line here.
//
// The order is ScheduleKind's, the config reference's and the reports'; nothing serialises the
// numbers (configs and plans use names).
//
// Included several times with different definitions of IPUTRAIN_SCHEDULE: no include guard.

IPUTRAIN_SCHEDULE(Grouped)
IPUTRAIN_SCHEDULE(Interleaved)
IPUTRAIN_SCHEDULE(Sequential)
IPUTRAIN_SCHEDULE(ZeroBubble)
IPUTRAIN_SCHEDULE(ZeroBubbleH2)
