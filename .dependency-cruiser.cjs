/**
 * The allowed directions of imports in src/ (docs/architecture.md draws them).
 * test/architecture/dependencies.test.ts runs these rules in `npm test`;
 * `npx depcruise src` shows the same report by hand.
 */
const CAPABILITIES = '^src/(lead-records|call-records|analytics-records|profile-records|suppression-records|handoff-records|appointments|campaigns|imports|sending-numbers|users|console-api|leads|messages|profiles|context|subscriptions|dnc|settings|webhooks|organizations|compliance|channels)/';

/**
 * Each capability's public surface: the files of its folder that other folders of src/ may import, so what a
 * capability offers is read in one place and a reach into another's private helper fails `capability-surfaces`
 * below (docs/architecture.md prints this map; test/architecture/surfaces.test.ts keeps map, code and page in
 * step). Every folder of src/ has an entry, an empty one when nothing outside imports it. Files, not
 * re-exporting `index.ts` barrels: a barrel loads its whole folder for one helper, and a folder cycle (none is
 * left: `foldersInCycle` below) would become module cycles through barrels, which `no-circular` forbids.
 *
 * Exempt, with the reason:
 * - the composition roots (`app.ts`, `server.ts`, `worker/`, `cli/`) may import any file: wiring a capability
 *   (its routes, its job handlers, its registrations) is their one job, and nothing imports them;
 * - `platform/` has no list: it is the floor every capability stands on, all of it shared, and it imports
 *   nothing above it (`platform-is-the-floor`).
 */
const PUBLIC_SURFACES = {
  agent: ['apply.ts', 'context.ts', 'prompt.ts', 'provider.ts', 'registry.ts', 'scripted.ts', 'turn.ts'],
  analytics: [],
  'analytics-records': ['latency.ts', 'pending.repository.ts', 'recorder.repository.ts'],
  appointments: ['appointments.repository.ts', 'appointments.service.ts', 'slots.ts'],
  'call-records': ['calls.repository.ts', 'voice-settings.ts', 'waiting-calls.ts'],
  calls: ['call-session.ts', 'playground.ts'],
  campaigns: ['campaigns.service.ts'],
  channels: ['registry.ts'],
  compliance: [
    'contact-hours.ts',
    'contact-window.ts',
    'email-reply.ts',
    'external-check.ts',
    'external-verdict.ts',
    'gate.ts',
    'lead-zones.ts',
    'opt-out-language.ts',
    'opt-out-recognizer.ts',
    'send-checks.repository.ts',
  ],
  'console-api': [],
  context: ['context.repository.ts'],
  deliverability: ['deliverability.service.ts', 'error-codes.ts'],
  dnc: ['dnc.service.ts'],
  events: ['outbox.repository.ts', 'payloads.ts'],
  followups: ['cadence.ts', 'followups.mapper.ts', 'followups.repository.ts', 'followups.schemas.ts', 'followups.service.ts'],
  'handoff-records': ['handoffs.repository.ts'],
  handoffs: ['handoffs.service.ts', 'notify.ts'],
  imports: [],
  inbound: [],
  jobs: ['jobs.repository.ts', 'names.ts'],
  'lead-records': ['additional-info.ts', 'channels.ts', 'leads.repository.ts', 'number-only-lead.ts'],
  leads: ['inbound-lead.ts', 'lead-search.schemas.ts', 'lead-search.service.ts', 'leads.schemas.ts', 'new-lead.ts'],
  messages: ['messages.repository.ts', 'messages.schemas.ts', 'messages.service.ts', 'send.service.ts'],
  organizations: ['api-keys.service.ts', 'organizations.repository.ts', 'organizations.service.ts'],
  profiles: [
    'opening.ts',
    'openings.repository.ts',
    'profiles.schemas.ts',
    'profiles.service.ts',
    'template.ts',
    'variants.ts',
  ],
  'profile-records': ['profiles.repository.ts'],
  providers: [
    'channel-adapter.ts',
    'inbound-pipeline.ts',
    'twilio/adapters.ts',
    'twilio/calls-api.ts',
    'twilio/relay-twiml.ts',
    'twilio/signature.ts',
    'twilio/twilio.service.ts',
    'twilio/twiml.ts',
  ],
  'sending-numbers': ['ownership.ts', 'sender.ts'],
  settings: ['calendar-settings.ts', 'settings.schemas.ts', 'settings.service.ts'],
  subscriptions: ['consent-rules.ts', 'opt-out-effects.ts', 'subscriptions.service.ts'],
  'suppression-records': ['dnc.repository.ts', 'suppressions.repository.ts'],
  timeline: [],
  users: ['login-throttle.ts', 'passwords.ts', 'sessions.service.ts', 'users.repository.ts', 'users.service.ts'],
  webhooks: ['deliveries.repository.ts', 'dispatcher.ts', 'signing.ts', 'url-safety.ts'],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Every surface file as one anchored path pattern, for the rule below. */
const SURFACE_FILES = `^src/(${Object.entries(PUBLIC_SURFACES)
  .flatMap(([folder, files]) => files.map((file) => escape(`${folder}/${file}`)))
  .join('|')})$`;

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
    { name: 'capability-surfaces', severity: 'error', comment: "A folder imports only another folder's public surface (PUBLIC_SURFACES above); the roots and platform/ are exempt, as said there.", from: { path: '^src/([^/]+)/', pathNot: '^src/(worker|cli|platform)/' }, to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', '^src/platform/', SURFACE_FILES] } },
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

/**
 * The folders in an import cycle: the strongly connected components of the folder graph, computed by
 * test/architecture/folders.test.ts, which fails when they are not exactly this list (a folder that joins a cycle
 * fails; one that leaves it is taken off, so the list only shrinks). It is empty: every folder sits wholly above or
 * below every other it reaches. A cycle to tolerate for a while would be listed here with its reason.
 */
Object.defineProperty(module.exports, 'foldersInCycle', {
  enumerable: false,
  value: {
    folders: [],
    why: 'None left: where a folder held a low piece others read and a high one that orchestrates, the low piece has a folder below (the *-records folders), and where a low capability must reach a high one, the root passes the high one in (opt-out effects, the inbound pipeline): docs/architecture.md, "No cycle between folders".',
  },
});

/** The surfaces above, for the test and the page (not enumerable, as the exemptions). */
Object.defineProperty(module.exports, 'publicSurfaces', { enumerable: false, value: PUBLIC_SURFACES });
