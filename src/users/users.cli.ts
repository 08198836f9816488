import type { Command } from 'commander';
import type { Store } from '../platform/db/connect.js';
import { isRole, ROLES } from './roles.js';
import { createUserInOrganization } from './users.service.js';

type WithStore = <T>(fn: (store: Store) => Promise<T>) => Promise<T>;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One line: the trailing newline of `echo` or a here-string is not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** `parley users create`: the first admin of a console is made here (later ones from the console's Users page). */
export function registerUserCommands(program: Command, withStore: WithStore, database: () => string): void {
  const users = program.command('users').description('manage console users');
  users
    .command('create')
    .description(
      'create a console user (and the organization, if new); prints a one-time password unless --password-stdin',
    )
    .requiredOption('--org <name>', 'organization name')
    .requiredOption('--email <email>', 'the address the user signs in with')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--password-stdin', 'read the password from standard input instead of generating one')
    .action(async (opts: { org: string; email: string; role: string; passwordStdin?: boolean }) => {
      if (!isRole(opts.role)) {
        console.error(`parley: --role must be one of ${ROLES.join(', ')} (got "${opts.role}")`);
        process.exit(2);
      }
      const role = opts.role;
      const password = opts.passwordStdin ? await readStdin() : undefined;
      let created;
      try {
        created = await withStore((s) =>
          createUserInOrganization(s.db, opts.org, { email: opts.email, role, password }),
        );
      } catch (err) {
        console.error(`parley: ${(err as Error).message}`);
        process.exit(1);
      }
      console.log(
        `user: ${created.user.email} (${created.user.role}) in organization ${opts.org} (${created.user.organizationId})`,
      );
      console.log(`database: ${database()} (the server must use this same database)`);
      if (password === undefined) {
        console.log('Sign in at /console with this one-time password (shown once; store it now):');
        console.log(created.password);
      } else {
        console.log('The password was read from standard input.');
      }
    });
}
