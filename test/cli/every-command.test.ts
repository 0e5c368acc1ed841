import { expect } from 'chai';
import { COMMANDS } from '../../lib/cli/main.js';
import { cli, type Run } from './run.js';

/*
 * Every CLI failure is one line, never a stack: a property over every command of lib/cli/main.ts, its subcommands
 * (read from the usage error a command without one gives) and its options, with wrong command lines and with a
 * PostgreSQL nothing answers on. A new command, subcommand or option is covered without a new case here.
 */

// Port 1 on the loopback interface refuses at once; SINGLE_INSTANCE keeps the configuration valid without shared keys.
const UNREACHABLE = {
  LOG_LEVEL: 'silent',
  DATA_DIR: '/nonexistent/age-provider-never-created',
  SINGLE_INSTANCE: 'true',
  DATABASE_URL: 'postgres://operator:hunter2-secret@127.0.0.1:1/agedb',
};

/** The subcommands a command names when given none ('a subcommand is required: "a" or "b"'); [] if it takes none. */
async function subcommandsOf(name: string): Promise<string[]> {
  const { stderr } = await cli(UNREACHABLE, [name]);
  if (!stderr.includes('a subcommand is required')) return [];
  return [...stderr.split('\n')[0]!.matchAll(/"([a-z-]+)"/g)].map((match) => match[1]!);
}

/** Wrong or doubtful command lines for one command (and subcommand), built from its options. */
function commandLines(base: string[], options: Record<string, { type: string }>): string[][] {
  const strings = Object.keys(options).filter((option) => options[option]!.type === 'string');
  const booleans = Object.keys(options).filter((option) => options[option]!.type === 'boolean' && option !== 'json');
  return [
    base,
    [...base, '--json'],
    [...base, '--no-such-option'],
    [...base, 'unexpected-word', 'another'],
    ...strings.map((option) => [...base, `--${option}`]),
    ...strings.map((option) => [...base, `--${option}`, '']),
    ...strings.map((option) => [...base, `--${option}`, '1']),
    ...strings.map((option) => [...base, `--${option}`, 'x'.repeat(300), '--json']),
    ...booleans.map((option) => [...base, `--${option}=yes`]),
    [...base, ...strings.flatMap((option) => [`--${option}`, '1'])],
    [...base, ...strings.flatMap((option) => [`--${option}`, '1']), ...booleans.map((option) => `--${option}`)],
  ];
}

/** A failure is one line saying who speaks (and, for a usage error, one more pointing at --help); never a stack. */
function expectOneLine(args: string[], run: Run): void {
  const what = `age-provider ${args.join(' ')}: ${JSON.stringify(run)}`;
  if (run.code === 0) return;
  expect(run.code, what).to.be.oneOf([1, 2]);
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(lines[0], what).to.match(new RegExp(`^age-provider ${args[0]}: \\S`));
  expect(lines.slice(1), what).to.deep.equal(
    run.code === 2 ? [`Run "age-provider ${args[0]} --help" for its usage.`] : [],
  );
  expect(run.stderr, what).to.not.match(/^\s+at /m);
  expect(run.stderr, what).to.not.contain('hunter2-secret');
  if (args.includes('--json') && run.stdout) expect(JSON.parse(run.stdout), what).to.have.property('error');
}

describe('every CLI failure is one line, never a stack (every command, subcommand and option)', function () {
  this.timeout(300_000);

  it('covers every command the overview lists', async () => {
    const { stdout } = await cli(UNREACHABLE, ['--help']);
    for (const { name } of COMMANDS) expect(stdout).to.match(new RegExp(`^  ${name}\\s`, 'm'));
  });

  for (const command of COMMANDS) {
    it(`"${command.name}": wrong command lines and an unreachable database`, async () => {
      const subcommands = await subcommandsOf(command.name);
      const bases = subcommands.length ? subcommands.map((sub) => [command.name, sub]) : [[command.name]];
      let tried = 0;
      for (const base of bases)
        for (const args of commandLines(base, command.options as Record<string, { type: string }>)) {
          // A command that would run for good (serve, on a reachable database) cannot start here: nothing answers.
          expectOneLine(args, await cli(UNREACHABLE, args, 'not a password\n'));
          tried++;
        }
      expect(tried).to.be.at.least(4);
    });
  }
});
