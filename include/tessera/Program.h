#pragma once
// A pipeline written in the .tsr text language (docs/language.md): its inputs and
// parameters in the order they were declared, and the Func it computes, with the
// schedule the file gives. Everything the C++ API can build can be printed as .tsr and
// parsed back.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Argument.h"
#include "tessera/Func.h"
#include "tessera/Param.h"

namespace tessera {

struct Program {
    /** The pipeline's name (`pipeline NAME`; the output's name when not given): the name of
     * the C function compile_to_* produces. */
    std::string name;
    /** The inputs and parameters, in the order the file declares them: the arguments of
     * the compiled function. */
    std::vector<Argument> arguments;
    Func output;

    /** The input or parameter called `name`, or nullptr. */
    const Argument *argument(const std::string &name) const;

    /** Where the file mentions each Func (parse_program fills these; a Program made
     * otherwise has none): the name in its `func` statement, and the start of its first
     * schedule statement. Lines and columns count from 1. */
    struct Place {
        int line = 0, col = 0;
    };
    std::string file;                 // the file name given to parse_program
    std::vector<std::string> source;  // its lines
    std::map<std::string, Place> defined_at, scheduled_at;
};

/** A CompileError's message about `p` (one that lowering or compiling it raised, naming
 * Funcs as `Func "name"`), placed in p's file as parse errors are: "file:line:col: error:
 * message" with the source line and a caret, at the schedule statement of the first Func
 * it names where the message is about where or how the Func is computed, else at its
 * definition; a note with the place of each other Func it names. The message unchanged
 * where p has no places or it names no Func of p. */
std::string locate_in_source(const Program &p, const std::string &message);

/** Parses .tsr source. Every error of the file that can be found in one pass is reported
 * in one CompileError, each as "file:line:col: error: ..." with the source line and a
 * caret under the column. */
Program parse_program(const std::string &source, const std::string &filename = "<input>");
/** Reads and parses a .tsr file (a missing file is a CompileError). */
Program parse_program_file(const std::string &path);

/** Parses one expression of the .tsr language over the names of pipeline `p`: its
 * parameters, the bounds of its inputs (`in.width()`, `in.extent(1)`, `in.min.0`, ...)
 * and the bounds of its output, named by the output Func's name (`f.width()`,
 * `f.extent(0)`, ...): the form of the assumptions of `tessera validate --assume`. An
 * error is a CompileError that shows the text with a caret under the place, and `what`
 * names the text ("--assume"). */
Expr parse_expression(const Program &p, const std::string &text, const std::string &what = "<expression>");

/** The .tsr text of a pipeline: its inputs, parameters, RDoms, every definition and the
 * whole schedule. parse_program(print_program(p)) builds the same pipeline as p. */
std::string print_program(const Program &p);
/** The .tsr text of the pipeline computing `output` (Buffers it reads become inputs). */
std::string print_program(const Func &output, const std::string &name = "");

}  // namespace tessera
