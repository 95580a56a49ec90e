// write_docs(): see cli_docs.h.
#include "cli/cli_docs.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/option_table.h"
#include "pt2onnx.h"

namespace pt2onnx::cli {

namespace {

// The documented options of a command, without the hidden ones (empty group).
std::vector<const CLI::Option*> documented(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return o->nonpositional() && !o->get_group().empty(); });
}

std::vector<const CLI::App*> commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

bool takes_value(const CLI::Option& o) { return o.get_items_expected_max() > 0 && !o.get_type_name().empty(); }

std::vector<std::string> flags(const CLI::Option& o) {
  std::vector<std::string> out;
  for (const auto& s : o.get_snames()) out.push_back("-" + s);
  for (const auto& l : o.get_lnames()) out.push_back("--" + l);
  return out;
}

// roff: a backslash is \e, every '-' is \- (a real minus, so that `man` searches find flags),
// and a line must not begin with '.' or '\''.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// The config file key of a conversion option (config/option_table.h), or "".
std::string config_key_of(const CLI::Option& o) {
  for (const config::OptionSpec& spec : config::option_table()) {
    const std::string last = spec.flags.substr(spec.flags.rfind(',') + 1);
    if (!spec.config_key.empty() && o.check_name(last)) return spec.config_key;
  }
  return "";
}

// `conversion`: the options are the conversion's (the table's), whose config keys are named.
void man_options(std::ostream& out, const CLI::App& app, bool conversion) {
  for (const CLI::Option* o : documented(app)) {
    out << ".TP\n";
    std::string head;
    for (const auto& f : flags(*o)) head += (head.empty() ? "" : ", ") + ("\\fB" + roff(f) + "\\fR");
    if (takes_value(*o)) head += " \\fI" + roff(o->get_type_name()) + "\\fR";
    out << head << "\n" << roff(o->get_description());
    if (!o->get_default_str().empty()) out << " (default: " << roff(o->get_default_str()) << ")";
    if (const std::string key = conversion ? config_key_of(*o) : ""; !key.empty())
      out << "; config key \\fB" << roff(key) << "\\fR";
    out << "\n";
  }
}

std::string man_page(const CLI::App& app) {
  std::ostringstream out;
  out << ".TH PT2ONNX 1 \"\" \"pt2onnx " << version() << "\" \"User Commands\"\n"
      << ".SH NAME\npt2onnx \\- convert a PyTorch .pt2 archive (torch.export.save) to ONNX, without Python\n"
      << ".SH SYNOPSIS\n.B pt2onnx\n\\fIIN.pt2\\fR [\\fIoptions\\fR]\n";
  for (const CLI::App* sub : commands(app)) out << ".br\n.B pt2onnx " << sub->get_name() << "\n[\\fIoptions\\fR]\n";
  out << ".SH DESCRIPTION\n" << roff(app.get_description()) << "\n"
      << ".PP\nOptions given on the command line override those of the \\fB\\-\\-config\\fR file; "
         "the JSON Schemas of the config, report and inspect documents are installed in "
         "\\fI/usr/share/pt2onnx/schema\\fR (under the installation prefix).\n"
      << ".SH OPTIONS\n";
  man_options(out, app, true);
  out << ".SH COMMANDS\n";
  for (const CLI::App* sub : commands(app)) {
    out << ".SS \"pt2onnx " << sub->get_name() << "\"\n" << roff(sub->get_description()) << "\n";
    man_options(out, *sub, false);
  }
  out << ".SH EXIT STATUS\n"
         ".TP\n0\nsuccess\n.TP\n2\nbad command line or config\n.TP\n3\nunreadable archive or JSON\n"
         ".TP\n4\nunsupported op (all are listed)\n.TP\n6\nkernel compile (NVRTC missing or failing)\n"
         ".TP\n7\noutput not writable\n.TP\n8\n\\fB\\-\\-strict\\fR: a warning was refused\n"
         ".TP\n70\ninternal error\n"
      << ".SH EXAMPLES\n.nf\npt2onnx model.pt2 \\-o model.onnx \\-\\-opset 18\n"
         "pt2onnx model.pt2 \\-\\-hiera DecoderLayer \\-\\-external\\-data \\-v\npt2onnx inspect model.pt2 \\-\\-json\n"
         "pt2onnx ops \\-\\-opset 18\n.fi\n";
  return out.str();
}

std::string word_list(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* o : documented(app))
    for (const auto& f : flags(*o)) out += (out.empty() ? "" : " ") + f;
  return out;
}

// Options whose value is a file or folder complete as such; other values are not guessed.
std::string bash_value_cases(const CLI::App& app) {
  std::string files, dirs, other;
  auto add = [](std::string& list, const std::string& f) { list += (list.empty() ? "" : "|") + f; };
  for (const CLI::Option* o : documented(app)) {
    if (!takes_value(*o)) continue;
    for (const auto& f : flags(*o)) add(o->get_type_name() == "FILE" ? files : o->get_type_name() == "DIR" ? dirs : other, f);
  }
  std::string out;
  if (!files.empty()) out += "      " + files + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  if (!dirs.empty()) out += "      " + dirs + ") COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n";
  if (!other.empty()) out += "      " + other + ") return ;;\n";
  return out;
}

std::string bash_completion(const CLI::App& app) {
  std::string names, pattern;  // "inspect ops" for compgen, "inspect|ops" for case
  for (const CLI::App* sub : commands(app)) {
    names += (names.empty() ? "" : " ") + sub->get_name();
    pattern += (pattern.empty() ? "" : "|") + sub->get_name();
  }
  std::ostringstream out;
  out << "# bash completion for pt2onnx " << version() << " (rendered by pt2onnx --generate-docs)\n"
      << "_pt2onnx() {\n"
      << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command= word\n"
      << "  for word in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n"
      << "    case $word in " << (pattern.empty() ? "''" : pattern.c_str()) << ") command=$word ;; esac\n"
      << "  done\n"
      << "  local options\n"
      << "  case $command in\n";
  for (const CLI::App* sub : commands(app)) {
    out << "  " << sub->get_name() << ")\n    options=\"" << word_list(*sub) << "\"\n    case $prev in\n"
        << bash_value_cases(*sub) << "    esac ;;\n";
  }
  out << "  *)\n    options=\"" << word_list(app) << "\"\n    case $prev in\n" << bash_value_cases(app) << "    esac ;;\n"
      << "  esac\n"
      << "  if [[ $cur == -* ]]; then\n"
      << "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
      << "  else\n"
      << "    COMPREPLY=($(compgen -f -X '!*.pt2' -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
      << "    [[ -z $command ]] && COMPREPLY+=($(compgen -W \"" << names << "\" -- \"$cur\"))\n"
      << "  fi\n"
      << "}\n"
      << "complete -o filenames -F _pt2onnx pt2onnx\n";
  return out.str();
}

// zsh _arguments specs: descriptions lose the characters that the spec syntax gives meaning.
std::string zsh_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else if (c == '[' || c == ']' || c == ':' || c == '\\') out += std::string("\\") + c;
    else out += c;
  }
  return out;
}

std::string zsh_specs(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* o : documented(app)) {
    const std::string help = zsh_text(o->get_description());
    const bool repeatable = o->get_items_expected_max() > 1 || o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
    std::string value;
    if (takes_value(*o)) {
      const std::string& type = o->get_type_name();
      value = ":" + zsh_text(type) + ":" + (type == "FILE" ? "_files" : type == "DIR" ? "_files -/" : " ");
    }
    for (const auto& f : flags(*o)) out += "    '" + std::string(repeatable ? "*" : "") + f + "[" + help + "]" + value + "' \\\n";
  }
  return out;
}

std::string zsh_completion(const CLI::App& app) {
  std::ostringstream out;
  out << "#compdef pt2onnx\n# zsh completion for pt2onnx " << version() << " (rendered by pt2onnx --generate-docs)\n"
      << "_pt2onnx() {\n  case ${words[2]} in\n";
  for (const CLI::App* sub : commands(app))
    out << "  " << sub->get_name() << ")\n    shift words; (( CURRENT-- ))\n    _arguments -s \\\n" << zsh_specs(*sub)
        << "    '*:archive:_files -g \"*.pt2\"' ;;\n";
  std::string names;
  for (const CLI::App* sub : commands(app))
    names += " '" + sub->get_name() + ":" + zsh_text(sub->get_description()) + "'";
  out << "  *)\n    _arguments -s \\\n" << zsh_specs(app)
      << "    '1: :->first' '*:archive:_files -g \"*.pt2\"'\n"
      << "    if [[ $state == first ]]; then\n"
      << "      local -a commands=(" << names << ")\n"
      << "      _alternative 'commands:command:_describe command commands' 'files:archive:_files -g \"*.pt2\"'\n"
      << "    fi ;;\n  esac\n}\n_pt2onnx \"$@\"\n";
  return out.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

}  // namespace

void write_docs(const CLI::App& app, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  write_file(dir / "pt2onnx.1", man_page(app));
  write_file(dir / "pt2onnx.bash", bash_completion(app));
  write_file(dir / "_pt2onnx", zsh_completion(app));
}

}  // namespace pt2onnx::cli
