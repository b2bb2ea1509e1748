
// Generated from IpuLang.g4 by ANTLR 4.7.2


#include "IpuLangBaseVisitor.h"


using namespace iputrain::grammar;

