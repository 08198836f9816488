import { Command, Option } from 'commander';
import { ConfigError, describeDatabase, loadConfig, type Config } from '../platform/config.js';
import { openStore, type Store } from '../platform/db/connect.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { issueKey, keysOf, revokeKey } from '../organizations/api-keys.service.js';
import { DEFAULT_SCOPES, parseScopes, SCOPES } from '../platform/auth/scopes.js';
import { checkTimeZone } from '../platform/time-zone.js';
import { FALLBACK_TIME_ZONE } from '../platform/time-zone.js';
import { registerUserCommands } from '../users/users.cli.js';

/** The HTTP stack and the worker load only for the commands that run them: key commands start twice as fast. */
const server = () => import('../server.js');

function config(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`parley: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

/** The base URL a person on this machine opens: the listen address, with a wildcard host read as localhost. */
function localBase(address: string): string {
  return address.replace('//0.0.0.0:', '//localhost:').replace('//[::]:', '//localhost:');
}

/** Opens the configured store (migrated, unless told not to) for one command, and always closes it. */
async function withStore<T>(fn: (store: Store) => Promise<T>, migrateFirst = true): Promise<T> {
  const cfg = config();
  // On SQLite a busy server may hold the write lock turn after turn (SQLite's wait is no fair queue): a command waits longer than a request would.
  const store = openStore(cfg.databaseUrl, 2, { busyTimeoutMs: 60_000 });
  try {
    if (migrateFirst) await migrateToLatest(store);
    return await fn(store);
  } finally {
    await store.close();
  }
}

const program = new Command('parley').description('Parley lead engagement service').showHelpAfterError();

program
  .command('serve')
  .description('run the HTTP API and the background worker (webhooks, scheduled sends)')
  .option('--no-worker', 'run the HTTP API only (run `parley worker` processes separately)')
  .action(async (opts: { worker: boolean }) => {
    const cfg = config();
    const { startServer, stopOnSignals } = await server();
    const running = await startServer({ ...cfg, runWorker: opts.worker && cfg.runWorker });
    const base = localBase(running.address);
    const database = describeDatabase(cfg.databaseUrl);
    running.deps.log.info(
      { address: running.address, dialect: running.store.dialect, worker: !!running.worker, database },
      'parley listening',
    );
    // What a new user needs next: where to read the API, and how to get a key for this very database.
    running.deps.log.info(
      { url: `${base}/docs` },
      `API reference: ${base}/docs (the OpenAPI document: ${base}/v1/openapi.json)`,
    );
    running.deps.log.info(
      { database },
      `API keys: npx parley keys create --org NAME, against this same database (${database}); send the key in the x-api-key header`,
    );
    stopOnSignals(running);
  });

program
  .command('worker')
  .description('run only the background worker (any number may share one PostgreSQL database)')
  .action(async () => {
    const cfg = config();
    const { startWorker, stopOnSignals } = await server();
    const worker = await startWorker(cfg);
    worker.deps.log.info({ dialect: worker.deps.dialect }, 'parley worker running');
    stopOnSignals(worker);
  });

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(async () => {
    // Not through withStore's own migration first, or there would never be anything left to report.
    const applied = await withStore((s) => migrateToLatest(s), false);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  });

const keys = program.command('keys').description('manage API keys');

keys
  .command('create')
  .description('create an API key (and the organization, if new); the key is the last line of output')
  .requiredOption('--org <name>', 'organization name')
  .option(
    '--scopes <list>',
    `comma-separated scopes (default: all but inbound:write, which is granted only by name): ${SCOPES.join(', ')}`,
  )
  .option('--name <label>', 'a label to recognise the key by')
  .option(
    '--time-zone <zone>',
    `IANA zone of a new organization, for leads whose zone is unknown (default ${FALLBACK_TIME_ZONE}; change later with PATCH /v1/settings)`,
  )
  .action(async (opts: { org: string; scopes?: string; name?: string; timeZone?: string }) => {
    let scopes;
    try {
      scopes = opts.scopes ? parseScopes(opts.scopes) : [...DEFAULT_SCOPES];
      if (opts.timeZone) checkTimeZone(opts.timeZone);
    } catch (err) {
      console.error(`parley: ${(err as Error).message}`);
      process.exit(2);
    }
    const issued = await withStore((s) =>
      issueKey(s.db, opts.org, scopes, opts.name ?? null, { timeZone: opts.timeZone }),
    );
    console.log(`organization: ${opts.org} (${issued.organizationId})`);
    console.log(`scopes: ${issued.scopes.join(',')}`);
    // A key made in one database is unknown to a server on another: say which one this is.
    console.log(`database: ${describeDatabase(config().databaseUrl)} (the server must use this same database)`);
    // The server this key is for answers where PORT / PARLEY_PUBLIC_URL say, not on a fixed port.
    const leadsUrl = `${config().publicUrl}/v1/leads`;
    console.log(
      `Use it as the x-api-key header: curl -H "x-api-key: $KEY" ${leadsUrl} (in a shell: KEY=$(npx parley keys create --org NAME | tail -n 1))`,
    );
    console.log('This key is shown once; store it now:');
    console.log(issued.key);
  });

keys
  .command('list')
  .description("list an organization's keys (prefix, scopes, state)")
  .requiredOption('--org <name>', 'organization name')
  .action(async (opts: { org: string }) => {
    const list = await withStore((s) => keysOf(s.db, opts.org));
    if (!list) {
      console.error(`parley: no organization named "${opts.org}" in ${describeDatabase(config().databaseUrl)}`);
      process.exit(1);
    }
    console.log(['PREFIX', 'STATE', 'SCOPES', 'CREATED', 'NAME'].join('\t'));
    for (const k of list) {
      console.log(
        [k.prefix, k.revokedAt ? 'revoked' : 'active', k.scopes.join(','), k.createdAt, k.name ?? ''].join('\t'),
      );
    }
  });

keys
  .command('revoke <prefix>')
  .description('revoke the key with this prefix (as shown by keys list)')
  .addOption(new Option('--org <name>', 'only in this organization'))
  .action(async (prefix: string, opts: { org?: string }) => {
    const n = await withStore((s) => revokeKey(s.db, prefix, opts.org));
    if (n === 0) {
      console.error(`parley: no active key with prefix ${prefix} in ${describeDatabase(config().databaseUrl)}`);
      process.exit(1);
    }
    console.log(`revoked ${n} key${n === 1 ? '' : 's'}`);
  });

const imports = program.command('import').description('import data from files');

imports
  .command('leads <file>')
  .description('import leads from a CSV file (streamed; re-running the same file creates nothing new)')
  .requiredOption('--org <name>', 'organization name')
  .option('--profile <name>', 'customer profile of the new leads', 'default')
  .option(
    '--map <pairs>',
    'header=field pairs, e.g. "Mobile=phone,First Name=firstName" (field, info:KEY, or - to ignore)',
  )
  .option(
    '--on-duplicate <policy>',
    'a row matching an existing lead: update (set given fields, merge additionalInfo) or skip',
    'update',
  )
  .option(
    '--start-conversations',
    "schedule each new (or never-greeted) lead's opening message, through the compliance gate",
  )
  .option('--dry-run', 'check and count only; write nothing')
  .option(
    '--invalid-fields <policy>',
    'a row with a valid address and a bad field (email, phone, timeZone): drop the field and import the lead with a warning, or reject the row',
    'drop',
  )
  .option(
    '--rejects <file>',
    'write the rejected rows (reason column) and the rows imported with warnings (warnings column) to this CSV file',
  )
  .option(
    '--encoding <name>',
    "the file's text encoding when it has no byte order mark: utf-8, windows-1252, utf-16le, utf-16be (default: utf-8, or windows-1252 when the start of the file is not UTF-8)",
  )
  .addOption(new Option('--batch-size <rows>', 'rows per transaction').hideHelp())
  .action(async (file: string, opts: import('../imports/import.command.js').ImportCommandOptions) => {
    const { importLeadsCommand } = await import('../imports/import.command.js');
    process.exitCode = await importLeadsCommand(file, opts, config());
  });

registerUserCommands(program, withStore, () => describeDatabase(config().databaseUrl));

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`parley: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
