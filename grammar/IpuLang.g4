// IpuLang: the model language (`*.ipu`).
//
// Newlines are whitespace. Every statement starts with a keyword or `NAME =`, and there are no
// expression statements, so statements need no terminator; an optional `;` may follow any of them.
// Expressions may therefore span lines freely.
//
// Operator precedence, loosest first (as in Python):
//   or < and < not < comparisons < + - < * / // % @ < unary - < ** (right-assoc) < call . [ ]
grammar IpuLang;

file
  : (topItem ';'?)* EOF
  ;

topItem
  : importDecl
  | fromImportDecl
  | modelDecl
  | defDecl
  | layerDecl
  ;

importDecl     : 'import' NAME ;
fromImportDecl : 'from' NAME 'import' NAME (',' NAME)* ;

modelDecl : 'model' NAME '(' paramList? ')' block ;
defDecl   : 'def' NAME '(' paramList? ')' ('=' expr | block) ;
layerDecl : 'layer' NAME '(' paramList? ')' block ;

paramList : paramDecl (',' paramDecl)* ','? ;
paramDecl : NAME (':' typeExpr)? ('=' expr)? ;

// `f32[batch, 28, 28]`, `f32[..., n]`, `int`, `bool`.
typeExpr : NAME ('[' (dim (',' dim)*)? ']')? ;
dim      : '...' | expr ;

block : '{' (stmt ';'?)* '}' ;

stmt
  : 'input' NAME ':' typeExpr                     # inputStmt
  | stageDecl                                     # stageStmt
  | 'parallel' '{' (stageDecl ';'?)* '}'          # parallelStmt
  | 'param' NAME ':' typeExpr ('=' expr)? (',' paramOption)*  # paramStmt
  | 'return' expr                                 # returnStmt
  | ifStmt                                        # ifStmtAlt
  | 'for' NAME 'in' expr '..' expr block          # forStmt
  | 'loop' '(' loopVar (',' loopVar)* ','? ')' 'over' NAME 'in' expr '..' expr ('while' expr)? block  # loopStmt
  | 'collect' NAME '=' expr                       # collectStmt
  | 'minimize' expr                               # minimizeStmt
  | 'assert' expr ',' expr                         # assertStmt
  | 'output' perSample='per_sample'? NAME ('=' expr)?  # outputStmt
  | NAME '=' expr                                 # assignStmt
  ;

// A value a `loop` carries from one iteration to the next: `h` (its current value) or `h = h0`.
loopVar : NAME ('=' expr)? ;

// `param moving_mean: f32[c] = zeros(), trainable = false`
paramOption : NAME '=' expr ;

stageDecl : 'stage' NAME block ;
ifStmt    : 'if' expr block ('else' (ifStmt | block))? ;

expr
  : expr '(' argList? ')'                              # callExpr
  | expr '.' NAME                                      # attrExpr
  | expr '[' subscript (',' subscript)* ']'            # indexExpr
  | <assoc=right> expr '**' expr                       # powExpr
  | op=('-' | '+') expr                                # unaryExpr
  | expr op=('*' | '/' | '//' | '%' | '@') expr        # mulExpr
  | expr op=('+' | '-') expr                           # addExpr
  | expr op=('==' | '!=' | '<' | '<=' | '>' | '>=') expr  # compareExpr
  | 'not' expr                                         # notExpr
  | expr 'and' expr                                    # andExpr
  | expr 'or' expr                                     # orExpr
  | INT                                                # intExpr
  | FLOAT                                              # floatExpr
  | ('true' | 'false')                                 # boolExpr
  | STRING                                             # stringExpr
  | NAME                                               # nameExpr
  | '[' (expr (',' expr)* ','?)? ']'                   # listExpr
  | '(' expr ')'                                       # parenExpr
  ;

argList : arg (',' arg)* ','? ;
arg     : NAME '=' expr | expr ;

// `i`, `a:b`, `:b`, `a:`, `::2`, `...` (all leading dimensions)
subscript
  : '...'
  | expr
  | lo=expr? ':' hi=expr? (':' step=expr?)?
  ;

NAME   : [a-zA-Z_] [a-zA-Z_0-9]* ;
FLOAT  : DIGITS '.' DIGITS EXPONENT? | DIGITS EXPONENT ;
INT    : DIGITS ;
STRING : '"' (~["\\\r\n] | '\\' .)* '"' | '\'' (~['\\\r\n] | '\\' .)* '\'' ;

fragment DIGITS   : [0-9] ('_'? [0-9])* ;
fragment EXPONENT : [eE] [+-]? DIGITS ;

COMMENT : '#' ~[\r\n]* -> skip ;
WS      : [ \t\r\n]+ -> skip ;
