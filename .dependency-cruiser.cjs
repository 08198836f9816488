/**
 * The allowed directions of imports in src/ (docs/architecture.md draws them).
 * test/architecture/dependencies.test.ts runs these rules in `npm test`;
 * `npx depcruise src` shows the same report by hand.
 */
const CAPABILITIES = '^src/(lead-records|call-records|appointments|campaigns|imports|sending-numbers|users|console-api|leads|messages|profiles|context|subscriptions|dnc|settings|webhooks|organizations|compliance|channels)/';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'An import cycle hides which layer is below which.', from: { path: '^src/' }, to: { circular: true } },
    { name: 'platform-is-the-floor', severity: 'error', comment: 'platform/ serves every capability and knows none.', from: { path: '^src/platform/' }, to: { path: '^src/(?!platform/)' } },
    { name: 'queue-and-outbox-are-leaves', severity: 'error', comment: 'jobs/ and events/ know names and payloads, never handlers: anyone may enqueue or emit without importing whoever acts.', from: { path: '^src/(jobs|events)/' }, to: { path: '^src/(?!platform/|jobs/|events/)' } },
    { name: 'composition-roots-on-top', severity: 'error', comment: 'Only the roots (app, server, cli, worker) wire capabilities together; nothing imports them.', from: { path: '^src/(?!worker/|cli/|app\\.ts$|server\\.ts$)' }, to: { path: '^src/(worker/|cli/|app\\.ts$|server\\.ts$)' } },
    { name: 'routes-only-from-the-app', severity: 'error', comment: 'HTTP is the outermost layer of a capability.', from: { path: '^src/(?!app\\.ts$)' }, to: { path: '\\.routes\\.ts$' } },
    { name: 'repositories-below-services', severity: 'error', comment: 'Repositories hold queries only; rules live in services above them.', from: { path: '\\.repository\\.ts$' }, to: { path: '\\.(service|routes)\\.ts$' } },
    { name: 'services-know-no-http', severity: 'error', comment: 'A service is called by routes, jobs and the CLI alike.', from: { path: '\\.service\\.ts$' }, to: { path: '^node_modules/(fastify|@fastify)/' } },
    { name: 'capabilities-trigger-by-name', severity: 'error', comment: 'A capability never imports a higher one to trigger work: it enqueues a job by name (jobs/names.ts).', from: { path: CAPABILITIES }, to: { path: '^src/(agent|inbound)/|^src/providers/twilio/twilio\\.(routes|service)\\.ts$' } },
    { name: 'migrations-are-history', severity: 'error', comment: 'A migration is run, never imported for a constant: its code is frozen history, the running code has its own.', from: { path: '^src/(?!platform/db/migrate\\.ts$|platform/db/migrations/)' }, to: { path: '^src/platform/db/migrations/' } },
    { name: 'one-gate', severity: 'error', comment: 'The compliance gate is asked only by the send path, the send API (messages/send.service.ts, when a message is created) and placeCall before dialling: no other door to a provider.', from: { path: '^src/(?!channels/|compliance/|messages/send\\.service\\.ts$|calls/calls\\.service\\.ts$)' }, to: { path: '^src/compliance/gate\\.ts$' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a cycle through types still couples the files.
    tsPreCompilationDeps: true,
  },
};

/**
 * Folder-level rule: no two folders of src/ import each other (test/architecture/folders.test.ts computes the
 * folder graph from depcruise's JSON). A pair listed here, with its reason, would be let through; none is left
 * (the test also fails on a listed pair that is no longer mutual, so the list only ever shrank). A new pair is
 * not an exemption to add: move the piece both need below them, or let the higher one register with the lower
 * (docs/architecture.md). Not enumerable, so depcruise's own config check does not see it.
 */
Object.defineProperty(module.exports, 'mutualFolderExemptions', {
  enumerable: false,
  value: {},
});
