// Command-line walking shared by compare.mjs and run.mjs: `--flag=value` and `--flag value`
// alike. For each argument, `handle(flag, take, raw, rest)` runs: `take()` returns the flag's
// value (failing through `fail` when there is none), `rest()` returns every argument after this
// one and ends the walk.
export function walkArgs(argv, fail, handle) {
  for (let i = 0; i < argv.length; ++i) {
    let flag = argv[i];
    let value = null;
    const eq = flag.indexOf('=');
    if (flag.startsWith('--') && eq > 0) {
      value = flag.slice(eq + 1);
      flag = flag.slice(0, eq);
    }
    const take = () => {
      if (value !== null) return value;
      if (i + 1 >= argv.length) fail(`${flag} needs a value`);
      return argv[++i];
    };
    const rest = () => {
      const remaining = argv.slice(i + 1);
      i = argv.length;
      return remaining;
    };
    handle(flag, take, argv[i], rest);
  }
}
