
// Generated from IpuLang.g4 by ANTLR 4.7.2

#pragma once


#include "antlr4-runtime.h"
#include "IpuLangParser.h"


namespace iputrain::grammar {

/**
 * This class defines an abstract visitor for a parse tree
 * produced by IpuLangParser.
 */
class  IpuLangVisitor : public antlr4::tree::AbstractParseTreeVisitor {
public:

  /**
   * Visit parse trees produced by IpuLangParser.
   */
    virtual antlrcpp::Any visitFile(IpuLangParser::FileContext *context) = 0;

    virtual antlrcpp::Any visitTopItem(IpuLangParser::TopItemContext *context) = 0;

    virtual antlrcpp::Any visitImportDecl(IpuLangParser::ImportDeclContext *context) = 0;

    virtual antlrcpp::Any visitFromImportDecl(IpuLangParser::FromImportDeclContext *context) = 0;

    virtual antlrcpp::Any visitModelDecl(IpuLangParser::ModelDeclContext *context) = 0;

    virtual antlrcpp::Any visitDefDecl(IpuLangParser::DefDeclContext *context) = 0;

    virtual antlrcpp::Any visitLayerDecl(IpuLangParser::LayerDeclContext *context) = 0;

    virtual antlrcpp::Any visitParamList(IpuLangParser::ParamListContext *context) = 0;

    virtual antlrcpp::Any visitParamDecl(IpuLangParser::ParamDeclContext *context) = 0;

    virtual antlrcpp::Any visitTypeExpr(IpuLangParser::TypeExprContext *context) = 0;

    virtual antlrcpp::Any visitDim(IpuLangParser::DimContext *context) = 0;

    virtual antlrcpp::Any visitBlock(IpuLangParser::BlockContext *context) = 0;

    virtual antlrcpp::Any visitInputStmt(IpuLangParser::InputStmtContext *context) = 0;

    virtual antlrcpp::Any visitStageStmt(IpuLangParser::StageStmtContext *context) = 0;

    virtual antlrcpp::Any visitParallelStmt(IpuLangParser::ParallelStmtContext *context) = 0;

    virtual antlrcpp::Any visitParamStmt(IpuLangParser::ParamStmtContext *context) = 0;

    virtual antlrcpp::Any visitReturnStmt(IpuLangParser::ReturnStmtContext *context) = 0;

    virtual antlrcpp::Any visitIfStmtAlt(IpuLangParser::IfStmtAltContext *context) = 0;

    virtual antlrcpp::Any visitForStmt(IpuLangParser::ForStmtContext *context) = 0;

    virtual antlrcpp::Any visitLoopStmt(IpuLangParser::LoopStmtContext *context) = 0;

    virtual antlrcpp::Any visitCollectStmt(IpuLangParser::CollectStmtContext *context) = 0;

    virtual antlrcpp::Any visitMinimizeStmt(IpuLangParser::MinimizeStmtContext *context) = 0;

    virtual antlrcpp::Any visitAssertStmt(IpuLangParser::AssertStmtContext *context) = 0;

    virtual antlrcpp::Any visitOutputStmt(IpuLangParser::OutputStmtContext *context) = 0;

    virtual antlrcpp::Any visitAssignStmt(IpuLangParser::AssignStmtContext *context) = 0;

    virtual antlrcpp::Any visitLoopVar(IpuLangParser::LoopVarContext *context) = 0;

    virtual antlrcpp::Any visitParamOption(IpuLangParser::ParamOptionContext *context) = 0;

    virtual antlrcpp::Any visitStageDecl(IpuLangParser::StageDeclContext *context) = 0;

    virtual antlrcpp::Any visitIfStmt(IpuLangParser::IfStmtContext *context) = 0;

    virtual antlrcpp::Any visitIntExpr(IpuLangParser::IntExprContext *context) = 0;

    virtual antlrcpp::Any visitOrExpr(IpuLangParser::OrExprContext *context) = 0;

    virtual antlrcpp::Any visitNameExpr(IpuLangParser::NameExprContext *context) = 0;

    virtual antlrcpp::Any visitParenExpr(IpuLangParser::ParenExprContext *context) = 0;

    virtual antlrcpp::Any visitStringExpr(IpuLangParser::StringExprContext *context) = 0;

    virtual antlrcpp::Any visitIndexExpr(IpuLangParser::IndexExprContext *context) = 0;

    virtual antlrcpp::Any visitFloatExpr(IpuLangParser::FloatExprContext *context) = 0;

    virtual antlrcpp::Any visitUnaryExpr(IpuLangParser::UnaryExprContext *context) = 0;

    virtual antlrcpp::Any visitNotExpr(IpuLangParser::NotExprContext *context) = 0;

    virtual antlrcpp::Any visitAddExpr(IpuLangParser::AddExprContext *context) = 0;

    virtual antlrcpp::Any visitMulExpr(IpuLangParser::MulExprContext *context) = 0;

    virtual antlrcpp::Any visitAttrExpr(IpuLangParser::AttrExprContext *context) = 0;

    virtual antlrcpp::Any visitBoolExpr(IpuLangParser::BoolExprContext *context) = 0;

    virtual antlrcpp::Any visitPowExpr(IpuLangParser::PowExprContext *context) = 0;

    virtual antlrcpp::Any visitCallExpr(IpuLangParser::CallExprContext *context) = 0;

    virtual antlrcpp::Any visitListExpr(IpuLangParser::ListExprContext *context) = 0;

    virtual antlrcpp::Any visitCompareExpr(IpuLangParser::CompareExprContext *context) = 0;

    virtual antlrcpp::Any visitAndExpr(IpuLangParser::AndExprContext *context) = 0;

    virtual antlrcpp::Any visitArgList(IpuLangParser::ArgListContext *context) = 0;

    virtual antlrcpp::Any visitArg(IpuLangParser::ArgContext *context) = 0;

    virtual antlrcpp::Any visitSubscript(IpuLangParser::SubscriptContext *context) = 0;


};

}  // namespace iputrain::grammar
