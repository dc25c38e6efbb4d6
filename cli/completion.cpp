#include "cli/completion.h"

#include <cassert>
#include <cstdio>

#include "runs/exit_code.h"

namespace wtsim::cli {
namespace {

std::vector<const CLI::App*> verbs_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// Every spelling of a verb's named options, space separated.
std::string option_words(const CLI::App& verb) {
  std::string words = "--help";
  for (const CLI::Option* opt : verb.get_options()) {
    if (opt->get_positional()) continue;
    for (const std::string& l : opt->get_lnames()) words += (l == "help" ? "" : " --" + l);
    for (const std::string& s : opt->get_snames()) words += (s == "h" ? "" : " -" + s);
  }
  return words;
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  std::string verbs;
  std::string cases;
  for (const CLI::App* verb : verbs_of(app)) {
    verbs += (verbs.empty() ? "" : " ") + verb->get_name();
    cases += "    " + verb->get_name() + ") opts=\"" + option_words(*verb) + "\" ;;\n";
  }
  return "# bash completion for wtsim, written by `wtsim completion bash`.\n"
         "# Use: source <(wtsim completion bash)   or save it in ~/.local/share/bash-completion/completions/wtsim\n"
         "_wtsim() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts=\"\"\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=( $(compgen -W \"" + verbs + " --help --version\" -- \"$cur\") )\n"
         "    return\n"
         "  fi\n"
         "  case \"${COMP_WORDS[1]}\" in\n" + cases +
         "  esac\n"
         "  case \"$prev\" in\n"
         "    --format) COMPREPLY=( $(compgen -W \"openmetrics perfetto\" -- \"$cur\") ); return ;;\n"
         "    --modes) COMPREPLY=( $(compgen -W \"all drop_unsynced torn_prefix sector_damage\" -- \"$cur\") ); return ;;\n"
         "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n"
         "  else\n"
         "    COMPREPLY=( $(compgen -f -- \"$cur\") )\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _wtsim wtsim\n";
}

int completion_command(const CLI::App& app, const std::string& shell) {
  assert(shell == "bash");  // CLI11 checked it
  std::fputs(bash_completion(app).c_str(), stdout);
  return runs::kHeld;
}

}  // namespace wtsim::cli
