// The instruction and expression parser, and the expression printer it round-trips through.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "helpers.h"
#include "parse/instructions.h"
#include "parse/match.h"
#include "support/error.h"

using namespace loom;

namespace {

std::string reprint(const std::string& text) { return to_string(parse_expression(text)); }

std::vector<std::string> predicate_texts(const Instruction& insn) {
    std::vector<std::string> out;
    for (const ExprPtr& p : insn.predicates) out.push_back(to_string(p));
    return out;
}

Instruction only_instruction(const std::string& text) {
    ParsedInstructions p = parse_instructions({text});
    REQUIRE(p.instructions.size() == 1);
    return p.instructions[0];
}

std::optional<Error> instructions_error(const std::vector<std::string>& sources) {
    return test::error_of([&] { parse_instructions(sources); });
}

std::optional<Error> expression_error(const std::string& text) {
    return test::error_of([&] { parse_expression(text); });
}

}  // namespace

TEST_CASE("precedence follows Python", "[parser]") {
    ExprPtr e = parse_expression("a + b*c");
    REQUIRE(e->kind == ExprKind::Binary);
    CHECK(e->op == BinOp::Add);
    CHECK(e->args[1]->op == BinOp::Mul);

    e = parse_expression("a - b - c");  // left associative
    CHECK(e->op == BinOp::Sub);
    CHECK(e->args[0]->op == BinOp::Sub);

    e = parse_expression("2**3**4");  // right associative
    CHECK(e->op == BinOp::Pow);
    CHECK(e->args[1]->op == BinOp::Pow);

    e = parse_expression("-a**2");  // the power binds first
    REQUIRE(e->kind == ExprKind::Unary);
    CHECK(e->unop == "-");
    CHECK(e->args[0]->op == BinOp::Pow);

    e = parse_expression("a**-b");
    CHECK(e->op == BinOp::Pow);
    CHECK(e->args[1]->kind == ExprKind::Unary);

    e = parse_expression("not a < b and c or d");
    CHECK(e->op == BinOp::Or);
    CHECK(e->args[0]->op == BinOp::And);
    CHECK(e->args[0]->args[0]->unop == "not");
    CHECK(e->args[0]->args[0]->args[0]->op == BinOp::Lt);

    e = parse_expression("a | b ^ c & d << 1 + 2");
    CHECK(e->op == BinOp::BitOr);
    CHECK(e->args[1]->op == BinOp::BitXor);
    CHECK(e->args[1]->args[1]->op == BinOp::BitAnd);
    CHECK(e->args[1]->args[1]->args[1]->op == BinOp::Shl);
    CHECK(e->args[1]->args[1]->args[1]->args[1]->op == BinOp::Add);

    e = parse_expression("a == b + 1");
    CHECK(e->op == BinOp::Eq);

    e = parse_expression("a // b % c * d");
    CHECK(e->op == BinOp::Mul);
    CHECK(e->args[0]->op == BinOp::Mod);
    CHECK(e->args[0]->args[0]->op == BinOp::FloorDiv);

    e = parse_expression("~a + +b");
    CHECK(e->args[0]->unop == "~");
    CHECK(e->args[1]->kind == ExprKind::Var);
}

TEST_CASE("printing matches loopy's listings and round-trips", "[parser][printer]") {
    // {input, printed}
    const std::vector<std::pair<std::string, std::string>> cases{
        {"2*a[i]", "2*a[i]"},
        {"a[i,j+1]", "a[i, j + 1]"},
        {"a+b", "a + b"},
        {"a-b", "a - b"},
        {"a - (b - c)", "a - (b - c)"},
        {"(a - b) - c", "a - b - c"},
        {"a + (b + c)", "a + b + c"},
        {"(a + b)*c", "(a + b)*c"},
        {"a*(b*c)", "a*b*c"},
        {"a/b", "a / b"},
        {"a*b/3.0", "(a*b) / 3.0"},  // pymbolic parenthesizes products in quotients
        {"a*(b // c)", "a*(b // c)"},
        {"(i + 1) % n", "(i + 1) % n"},
        {"a % (b*c)", "a % (b*c)"},
        {"-a**2", "-a**2"},
        {"(-a)**2", "(-a)**2"},
        {"(-3)**2", "(-3)**2"},
        {"-3*x", "-3*x"},
        {"x - -3", "x - -3"},
        {"a**-b", "a**(-b)"},
        {"(2**3)**4", "(2**3)**4"},
        {"2**3**4", "2**3**4"},
        {"-(a + b)", "-(a + b)"},
        {"sin(x)", "sin(x)"},
        {"f()", "f()"},
        {"atan2(y, x)", "atan2(y, x)"},
        {"a<b", "a < b"},
        {"(a < b) == c", "(a < b) == c"},
        {"a and b", "a and b"},
        {"not a", "not a"},
        {"not a < b", "not (a < b)"},
        {"not a and b", "not a and b"},
        {"(a or b) and c", "(a or b) and c"},
        {"a & b | c ^ d", "a & b | c ^ d"},
        {"(a << 2) + 1", "(a << 2) + 1"},
        {"a << (2 + 1)", "a << 2 + 1"},
        {"~a", "~a"},
        {"if(c, a, b)", "if(c, a, b)"},
        {"if(i > 0, a[i - 1], 0)", "if(i > 0, a[i - 1], 0)"},
        {"cast(float32, x)", "cast(float32, x)"},
        {"sum(k, a[i,k]*b[k,j])", "sum(k, a[i, k]*b[k, j])"},
        {"sum((i,j), e)", "sum((i, j), e)"},
        {"reduce(product, (i, j), e)", "product((i, j), e)"},
        {"simul_reduce(sum, k, a[k])", "simul_reduce(sum, k, a[k])"},
        {"argmax(i, a[i], i)", "argmax(i, a[i], i)"},
        {"2*sum(k, a[k]) + 1", "2*sum(k, a[k]) + 1"},
    };
    for (const auto& [in, out] : cases) {
        INFO(in);
        CHECK(reprint(in) == out);
        CHECK(reprint(out) == out);
    }
}

TEST_CASE("numeric literals", "[parser]") {
    ExprPtr e = parse_expression("42");
    CHECK(e->kind == ExprKind::IntLit);
    CHECK(e->ival == 42);

    e = parse_expression("-7");  // folded, as pymbolic does
    CHECK(e->kind == ExprKind::IntLit);
    CHECK(e->ival == -7);

    e = parse_expression("1.5f");
    CHECK(e->kind == ExprKind::FloatLit);
    CHECK(e->fval == 1.5);
    CHECK(e->dtype == DType::Float32);

    CHECK(parse_expression("2.5d")->dtype == DType::Float64);
    CHECK(parse_expression("2.5")->dtype == DType::Unknown);
    CHECK(parse_expression("1e-3")->fval == 1e-3);
    CHECK(parse_expression(".5")->fval == 0.5);
    CHECK(parse_expression("3f")->kind == ExprKind::FloatLit);

    e = parse_expression("2j");
    CHECK(e->kind == ExprKind::ImagLit);
    CHECK(e->fval == 2.0);
    CHECK(e->dtype == DType::Unknown);
    CHECK(parse_expression("2jf")->dtype == DType::Complex64);

    // Python's float repr.
    CHECK(reprint("2.") == "2.0");
    CHECK(reprint("1e-3") == "0.001");
    CHECK(reprint("1e-5") == "1e-05");
    CHECK(reprint("1e16") == "1e+16");
    CHECK(reprint("1e15") == "1000000000000000.0");
    CHECK(reprint("0.1") == "0.1");
    CHECK(reprint("1.5e300") == "1.5e+300");
    CHECK(reprint("1.5f") == "1.5f");
    CHECK(reprint("2.5d") == "2.5d");
    CHECK(reprint("2j") == "2j");
    CHECK(reprint("1.5jf") == "1.5jf");
    CHECK(reprint("-2.5") == "-2.5");
}

TEST_CASE("reductions and the max/min ambiguity", "[parser]") {
    ExprPtr e = parse_expression("sum((i, j), a[i, j])");
    REQUIRE(e->kind == ExprKind::Reduction);
    CHECK(e->name == "sum");
    CHECK(e->inames == std::vector<std::string>{"i", "j"});
    CHECK(e->args.size() == 1);
    CHECK_FALSE(e->allow_simultaneous);

    e = parse_expression("argmin(i, a[i], i)");
    CHECK(e->name == "argmin");
    CHECK(e->args.size() == 2);

    e = parse_expression("reduce(max, k, a[k])");
    CHECK(e->kind == ExprKind::Reduction);
    CHECK(e->name == "max");

    CHECK(parse_expression("simul_reduce(sum, k, a[k])")->allow_simultaneous);
    CHECK(parse_expression("any(i, a[i] > 0)")->kind == ExprKind::Reduction);
    CHECK(parse_expression("all((i,), a[i] > 0)")->inames == std::vector<std::string>{"i"});

    // A bare identifier first: a reduction, which the kernel builder may turn back into a call.
    e = parse_expression("max(x, y)");
    CHECK(e->kind == ExprKind::Reduction);
    CHECK(e->inames == std::vector<std::string>{"x"});

    // Anything else first, or another argument count: the binary (or n-ary) function.
    CHECK(parse_expression("max(a[i], b)")->kind == ExprKind::Call);
    CHECK(parse_expression("min(x + 1, y)")->kind == ExprKind::Call);
    e = parse_expression("max(x, y, z)");
    CHECK(e->kind == ExprKind::Call);
    CHECK(e->args.size() == 3);
    CHECK(e->args[0]->kind == ExprKind::Var);

    CHECK(expression_error("sum(a[i], b)"));
    CHECK(expression_error("sum(k)"));
    CHECK(expression_error("argmax(i, a[i])"));
    CHECK(expression_error("reduce(foo, k, a[k])"));
    CHECK(expression_error("reduce(sum, a[k], a[k])"));
    CHECK(expression_error("max((i, j), a, b)"));

    // An argmax/argmin of an argmax/argmin: its one operand gives the value and the index.
    e = parse_expression("reduce(argmax, i, reduce(argmin, j, a[i, j], j))");
    REQUIRE(e->args.size() == 1);
    CHECK(is_two_valued(e->args[0]));
    CHECK(to_string(pair_operand(e, 0)) == "a[i, j]");
    CHECK(to_string(pair_operand(e, 1)) == "j");
    CHECK(expression_error("sum(i, argmax(j, a[j], j))"));
    // loopy's tuple operand; a parenthesized first operand is not one.
    CHECK(to_string(parse_expression("argmax(i, (a[i], i))")) == "argmax(i, a[i], i)");
    CHECK(to_string(parse_expression("reduce(argmin, i, (a[i] + 1, i))")) == "argmin(i, a[i] + 1, i)");
    CHECK(to_string(parse_expression("argmax(i, (a[i] + 1)*2, i)")) == "argmax(i, (a[i] + 1)*2, i)");
    CHECK(expression_error("argmax(i, (a[i], i), i)"));
    CHECK(expression_error("sum(i, (a[i], i))"));
    CHECK(expression_error("argmax(i, sum(j, a[j]))"));
}

TEST_CASE("tagged names", "[parser]") {
    ExprPtr e = parse_expression("g$two(x) + a$one[i] * n$p");
    CHECK(to_string(e) == "g$two(x) + a$one[i]*n$p");
    visit(e, [](const ExprPtr& n) {
        if (n->kind == ExprKind::Call) CHECK((n->name == "g" && n->tag == "two"));
        if (n->kind == ExprKind::Subscript) CHECK((n->name == "a" && n->tag == "one"));
    });
    CHECK(expression_error("g $two(x)"));
    CHECK(expression_error("g$ two(x)"));
    CHECK(expression_error("g$(x)"));
    CHECK(expression_error("sum$t(i, a[i])"));
}

TEST_CASE("stack matches", "[match]") {
    const Instruction insn = only_instruction("out[i] = h$one(i)  {id=insn}");
    const RuleUse h{"h", "one"}, g{"g", ""}, f{"f", "two"};
    const auto holds = [&](const std::string& m, const std::vector<RuleUse>& uses) { return StackMatch::parse(m)(insn, uses); };
    CHECK(holds("", {h, g}));
    CHECK(holds("id:insn", {h, g}));  // one level: the instruction, and all below it
    CHECK_FALSE(holds("id:other", {h}));
    CHECK(holds("id:insn > id:h", {h, g}));
    CHECK_FALSE(holds("id:insn > id:h $", {h, g}));
    CHECK(holds("id:insn > id:h $", {h}));
    CHECK(holds("... > tag:one > id:g", {h, g, f}));
    CHECK_FALSE(holds("... > tag:one > id:g", {h}));
    CHECK(holds("... > id:f and tag:t* $", {h, g, f}));
    CHECK_FALSE(holds("... > tag:one $", {h, g}));
    CHECK_FALSE(holds("... > tag:none", {g}));  // an untagged use matches no tag
    CHECK(test::error_of([&] { holds("id:insn > reads:a", {h}); }).has_value());
}

TEST_CASE("expression errors name the token and its position", "[parser][errors]") {
    std::optional<Error> err = expression_error("a[i))");
    REQUIRE(err);
    CHECK(err->kind() == "ParseError");
    CHECK(err->message() == "unexpected token ')' in expression 'a[i))' (line 1, column 4)");
    CHECK(err->line() == 1);
    CHECK(err->column() == 4);

    err = expression_error("a +\n  * b");
    REQUIRE(err);
    CHECK(err->line() == 2);
    CHECK(err->column() == 3);

    err = expression_error("a +");
    REQUIRE(err);
    CHECK(err->message().find("unexpected end") != std::string::npos);
    CHECK(err->column() == 4);

    CHECK(expression_error("a < b < c")->column() == 7);
    CHECK(expression_error("(a, b)")->message().find("tuple") != std::string::npos);
    CHECK(expression_error("a $ b")->message().find("'$'") != std::string::npos);
    CHECK(expression_error("1x")->message().find("invalid number '1x'") != std::string::npos);
    CHECK(expression_error("99999999999999999999"));
    CHECK(expression_error("if(a, b)"));
    CHECK(expression_error("if x"));
    CHECK(expression_error("cast(nosuchtype, x)"));
    CHECK(expression_error("f(x)[i]"));
    CHECK(expression_error("a[]"));
    CHECK(expression_error("a and"));
    CHECK(expression_error(""));
}

TEST_CASE("assignments and temporaries", "[parser]") {
    Instruction insn = only_instruction("out[i] = 2*a[i]");
    CHECK(insn.kind == InsnKind::Assignment);
    REQUIRE(insn.assignees.size() == 1);
    CHECK(to_string(insn.assignees[0]) == "out[i]");
    CHECK(to_string(insn.expression) == "2*a[i]");
    CHECK_FALSE(insn.declares_temporary);
    CHECK(insn.line == 1);
    CHECK(insn.id.empty());
    CHECK(insn.within_inames.empty());
    CHECK_FALSE(insn.within_inames_is_final);

    insn = only_instruction("<> a_temp = sin(a[i])");
    CHECK(insn.declares_temporary);
    CHECK(insn.temp_var_type == DType::Unknown);
    CHECK(to_string(insn.assignees[0]) == "a_temp");

    insn = only_instruction("<float32> t[i_inner] = a[16*i_outer + i_inner]");
    CHECK(insn.declares_temporary);
    CHECK(insn.temp_var_type == DType::Float32);
    CHECK(to_string(insn.assignees[0]) == "t[i_inner]");

    insn = only_instruction("<>max_val, <>max_idx = argmax(i, abs(a[i]), i)");
    CHECK(insn.assignees.size() == 2);
    CHECK(insn.declares_temporary);
    CHECK(insn.expression->kind == ExprKind::Reduction);

    insn = only_instruction("v, k = argmax(i, a[i], i)");
    CHECK(insn.assignees.size() == 2);
    CHECK_FALSE(insn.declares_temporary);

    CHECK(instructions_error({"<> a, b = argmax(i, x[i], i)"}));
    CHECK(instructions_error({"<bogus> a = 1"})->message().find("unknown type 'bogus'") != std::string::npos);
    CHECK(instructions_error({"f(x) = 1"})->message().find("cannot assign to 'f(x)'") != std::string::npos);
    CHECK(instructions_error({"out[i] 2"}));
}

TEST_CASE("every attribute", "[parser][attributes]") {
    Instruction insn = only_instruction(
        "out[i] = a[i] {id=write, dep=a*:b, nosync=c@local:d@global:e@any:f, priority=-3, if=p:q, tags=t1:t2, "
        "groups=g1:g2, conflicts_grp=h, inames=i:j, dup=i:j->j_new, atomic}");
    CHECK(insn.id == "write");
    CHECK(insn.depends_on == std::set<std::string>{"a*", "b"});
    CHECK_FALSE(insn.depends_on_is_final);
    REQUIRE(insn.no_sync_with.size() == 4);
    CHECK(insn.no_sync_with[0].id_pattern == "c");
    CHECK(insn.no_sync_with[0].scope == SyncScope::Local);
    CHECK(insn.no_sync_with[1].scope == SyncScope::Global);
    CHECK(insn.no_sync_with[2].scope == SyncScope::Any);
    CHECK(insn.no_sync_with[3].id_pattern == "f");
    CHECK(insn.no_sync_with[3].scope == SyncScope::Any);
    CHECK(insn.priority == -3);
    CHECK(predicate_texts(insn) == std::vector<std::string>{"p", "q"});
    CHECK(insn.predicates[0]->kind == ExprKind::Var);
    CHECK(insn.tags == std::set<std::string>{"t1", "t2"});
    CHECK(insn.groups == std::set<std::string>{"g1", "g2"});
    CHECK(insn.conflicts_with_groups == std::set<std::string>{"h"});
    CHECK(insn.within_inames == std::set<std::string>{"i", "j"});
    CHECK(insn.within_inames_is_final);
    CHECK(insn.dup == std::vector<std::string>{"i", "j->j_new"});
    CHECK(insn.atomic);
    CHECK_FALSE(insn.atomic_init);

    insn = only_instruction("x[i] = 0 {atomic=init}");
    CHECK(insn.atomic);
    CHECK(insn.atomic_init);

    insn = only_instruction("x = 1 {id_prefix=init, dep=*maketmp, inames=+k}");
    CHECK(insn.id_prefix == "init");
    CHECK(insn.depends_on == std::set<std::string>{"maketmp"});
    CHECK(insn.depends_on_is_final);
    CHECK(insn.within_inames == std::set<std::string>{"k"});
    CHECK_FALSE(insn.within_inames_is_final);

    insn = only_instruction("x = 1 {dep=*}");
    CHECK(insn.depends_on.empty());
    CHECK(insn.depends_on_is_final);

    // Query values are kept raw, spaces and quotes included.
    insn = only_instruction("x = 1 {dep_query=id:foo* and not tag:\"a b\", nosync_query=writes:a@local}");
    CHECK(insn.dep_query == "id:foo* and not tag:\"a b\"");
    CHECK(insn.nosync_query == "writes:a@local");

    insn = only_instruction("... lbarrier {mem_kind=global, id=b}");
    CHECK(insn.mem_kind == "global");
    CHECK(insn.id == "b");

    insn = only_instruction("x = 1 {if=i > 0 and flag}");
    CHECK(predicate_texts(insn) == std::vector<std::string>{"i > 0 and flag"});
}

TEST_CASE("attribute errors", "[parser][attributes][errors]") {
    std::optional<Error> err = instructions_error({"x = 1 {foo=3}"});
    REQUIRE(err);
    CHECK(err->message() == "unknown instruction attribute 'foo' in instruction 'x = 1 {foo=3}' (line 1, column 8)");
    CHECK(err->line() == 1);
    CHECK(err->column() == 8);

    err = instructions_error({"x = 1 {priority=high}"});
    REQUIRE(err);
    CHECK(err->column() == 17);

    CHECK(instructions_error({"x = 1 {id}"})->message().find("'id' needs a value") != std::string::npos);
    CHECK(instructions_error({"x = 1 {nosync=a@sometimes}"}));
    CHECK(instructions_error({"x = 1 {atomic=yes}"})->message().find("atomicity directive 'yes' not understood") !=
          std::string::npos);
    CHECK(instructions_error({"... nop {atomic}"}));
    CHECK(instructions_error({"x = 1 {mem_kind=local}"}));
    CHECK(instructions_error({"... gbarrier {mem_kind=constant}"}));
    CHECK(instructions_error({"x = 1 {id=a,, dep=b}"}));
    CHECK(instructions_error({"x = 1 {id=a} trailing"}));
    CHECK(instructions_error({"x = 1 {if=a:b +}"}));
    CHECK(instructions_error({"for i {id=a}", "end"}));
    CHECK(instructions_error({"f(x) := x {id=a}"}));
}

TEST_CASE("for and if blocks", "[parser][blocks]") {
    ParsedInstructions p = parse_instructions({R"(
        for i
            a[i] = 0            {id=init}
            for j, k
                b[i, j, k] = a[i]
            end
            if i > 0
                c[i] = 1
            elif i < -5
                c[i] = 2
            elif flag
                c[i] = 3
            else
                c[i] = 4 {if=other}
            end
        end
        d = 5
    )"});
    REQUIRE(p.instructions.size() == 7);
    const std::vector<Instruction>& in = p.instructions;

    CHECK(in[0].within_inames == std::set<std::string>{"i"});
    CHECK(in[0].within_inames_is_final);
    CHECK(in[0].line == 3);
    CHECK(in[1].within_inames == std::set<std::string>{"i", "j", "k"});
    CHECK(in[1].predicates.empty());

    CHECK(predicate_texts(in[2]) == std::vector<std::string>{"i > 0"});
    CHECK(predicate_texts(in[3]) == std::vector<std::string>{"not (i > 0)", "i < -5"});
    CHECK(predicate_texts(in[4]) == std::vector<std::string>{"not (i > 0)", "not (i < -5)", "flag"});
    CHECK(predicate_texts(in[5]) ==
          std::vector<std::string>{"not (i > 0)", "not (i < -5)", "not flag", "other"});
    CHECK(in[5].within_inames == std::set<std::string>{"i"});

    CHECK(in[6].within_inames.empty());
    CHECK_FALSE(in[6].within_inames_is_final);
    CHECK(in[6].predicates.empty());
    CHECK(in[6].line == 17);

    // `inames=+...` inside a loop asks the builder for more; `inames=` joins the enclosing loops.
    p = parse_instructions({"for i", "x[i] = 1 {inames=+j}", "y[i] = 1 {inames=k}", "end"});
    CHECK(p.instructions[0].within_inames == std::set<std::string>{"i", "j"});
    CHECK_FALSE(p.instructions[0].within_inames_is_final);
    CHECK(p.instructions[1].within_inames == std::set<std::string>{"i", "k"});
    CHECK(p.instructions[1].within_inames_is_final);

    // Nested ifs accumulate.
    p = parse_instructions({"if a", "if b", "x = 1", "end", "end"});
    CHECK(predicate_texts(p.instructions[0]) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("unbalanced blocks", "[parser][blocks][errors]") {
    std::optional<Error> err = instructions_error({"x = 1", "  for i", "    y[i] = 2"});
    REQUIRE(err);
    CHECK(err->kind() == "ParseError");
    CHECK(err->line() == 2);
    CHECK(err->column() == 3);
    CHECK(err->message().find("never closed") != std::string::npos);

    err = instructions_error({"x = 1", "  end"});
    REQUIRE(err);
    CHECK(err->line() == 2);
    CHECK(err->column() == 3);

    CHECK(instructions_error({"else"}));
    CHECK(instructions_error({"for i", "elif a", "end"}));
    CHECK(instructions_error({"if a", "else", "elif b", "end"}));
    CHECK(instructions_error({"if a", "else", "else", "end"}));
    CHECK(instructions_error({"for", "end"}));
    CHECK(instructions_error({"for i j", "end"}));
    CHECK(instructions_error({"if", "end"}));
}

TEST_CASE("barriers and no-ops", "[parser]") {
    ParsedInstructions p = parse_instructions({"... gbarrier {id=bar, dep=*maketmp}", "...lbarrier", "... nop"});
    REQUIRE(p.instructions.size() == 3);
    CHECK(p.instructions[0].kind == InsnKind::Barrier);
    CHECK(p.instructions[0].barrier_kind == "global");
    CHECK(p.instructions[0].id == "bar");
    CHECK(p.instructions[0].depends_on_is_final);
    CHECK(p.instructions[0].assignees.empty());
    CHECK(p.instructions[0].expression == nullptr);
    CHECK(p.instructions[1].barrier_kind == "local");
    CHECK(p.instructions[1].mem_kind.empty());
    CHECK(p.instructions[2].kind == InsnKind::Nop);
    CHECK(p.instructions[2].line == 3);
    CHECK(instructions_error({"... sync"})->message().find("'... sync'") != std::string::npos);
}

TEST_CASE("substitution rules", "[parser]") {
    ParsedInstructions p = parse_instructions({"f(x, y) := x*y + 1", "g := 2*a[i]", "out[i] = f(a[i], 2) + g"});
    REQUIRE(p.substitutions.size() == 2);
    CHECK(p.substitutions[0].name == "f");
    CHECK(p.substitutions[0].arguments == std::vector<std::string>{"x", "y"});
    CHECK(to_string(p.substitutions[0].expression) == "x*y + 1");
    CHECK(p.substitutions[1].name == "g");
    CHECK(p.substitutions[1].arguments.empty());
    CHECK(p.instructions.size() == 1);

    CHECK(instructions_error({"f(x) := 1", "f(y) := 2"})->line() == 2);
    CHECK(instructions_error({"f(x + 1) := 1"}));
    CHECK(instructions_error({"a[i] := 1"}));
    CHECK(instructions_error({"<> f := 1"}));
}

TEST_CASE("comments, blank lines, indentation and continuation lines", "[parser]") {
    ParsedInstructions p = parse_instructions({R"(
        # a comment line

            out[i] = f(a[i],   # the first argument
                       b[i]) {id=x,
                               dep=y}
        z = 1  # trailing comment
    )"});
    REQUIRE(p.instructions.size() == 2);
    CHECK(to_string(p.instructions[0].expression) == "f(a[i], b[i])");
    CHECK(p.instructions[0].id == "x");
    CHECK(p.instructions[0].depends_on == std::set<std::string>{"y"});
    CHECK(p.instructions[0].line == 4);
    CHECK(p.instructions[1].line == 7);

    // Each string of a list starts a new line; lines count across the list.
    p = parse_instructions({"a = 1", "b = 2\nc = 3", "d = 4"});
    REQUIRE(p.instructions.size() == 4);
    CHECK(p.instructions[3].line == 4);

    std::optional<Error> err = instructions_error({"a = 1", "b = 2\n  c = )"});
    REQUIRE(err);
    CHECK(err->line() == 3);
    CHECK(err->column() == 7);
}

TEST_CASE("instruction errors quote the instruction and locate the token", "[parser][errors]") {
    std::optional<Error> err = instructions_error({"out[i] = 2*a[i]", "    out[i] = 2*a[i))"});
    REQUIRE(err);
    CHECK(err->kind() == "ParseError");
    CHECK(err->message() == "unexpected token ')' in instruction 'out[i] = 2*a[i))' (line 2, column 19)");
    CHECK(err->line() == 2);
    CHECK(err->column() == 19);

    // Inside a continued statement, the position is on the physical line of the token.
    err = instructions_error({"out[i] = f(a[i],", "           b[i] c)"});
    REQUIRE(err);
    CHECK(err->line() == 2);
    CHECK(err->column() == 17);
    CHECK(err->message().find("'out[i] = f(a[i], b[i] c)'") != std::string::npos);

    err = instructions_error({"x = 1", "out[i] = f(a[i]", "y = 2"});
    REQUIRE(err);
    CHECK(err->message().find("unclosed '('") != std::string::npos);
    CHECK(err->line() == 2);
    CHECK(err->column() == 11);

    err = instructions_error({"x = 1 + $"});
    REQUIRE(err);
    CHECK(err->column() == 9);
}

TEST_CASE("rewrite shares unchanged subtrees; referenced_names", "[expr]") {
    ExprPtr e = parse_expression("a[i] + b[j]*c + sum(k, d[k])");
    ExprPtr same = rewrite(e, [](const ExprPtr& n) { return n; });
    CHECK(same == e);

    ExprPtr renamed =
        rewrite(e, [](const ExprPtr& n) { return n->kind == ExprKind::Var && n->name == "c" ? var("z") : n; });
    CHECK(to_string(renamed) == "a[i] + b[j]*z + sum(k, d[k])");
    CHECK(renamed->args[0]->args[0] == e->args[0]->args[0]);  // a[i] is shared
    CHECK(renamed->args[1] == e->args[1]);                    // the reduction too

    CHECK(referenced_names(parse_expression("f(a[i], b) + a[j]")) == std::vector<std::string>{"a", "i", "b", "j"});
}
