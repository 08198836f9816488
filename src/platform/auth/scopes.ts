/**
 * The one table of route -> scope. Every /v1 route must appear here (the app
 * refuses to start otherwise), so a new route cannot ship unprotected.
 * `public` routes take no key.
 */
export const SCOPES = [
  'leads:read',
  'leads:write',
  'messages:write',
  'profiles:read',
  'profiles:write',
  'dnc:read',
  'dnc:write',
  'settings:read',
  'settings:write',
  'webhooks:manage',
  'consent:read',
  'inbound:write',
  'analytics:read',
] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * What a key gets when no scopes are named. `inbound:write` is left out: it
 * lets a caller speak as the lead (POST /v1/inbound), including the START
 * that lifts the lead's own STOP, so it is granted only by name and no other
 * scope implies it.
 */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'inbound:write');

/**
 * Scopes only the command line grants (`parley keys create --scopes`): whoever
 * holds a console session, even an admin, must not be able to mint a key that
 * speaks as the lead and lifts the lead's own STOP.
 */
export const CLI_ONLY_SCOPES: readonly Scope[] = ['inbound:write'];

export const routeScopes: Record<string, Scope | 'public'> = {
  'GET /v1/openapi.json': 'public',
  // Unsubscribe links in emails: the signed token is the authority (channels/unsubscribe.routes.ts).
  'GET /v1/unsubscribe/:token': 'public',
  'POST /v1/unsubscribe/:token': 'public',

  'POST /v1/leads/create': 'leads:write',
  'GET /v1/leads': 'leads:read',
  'GET /v1/leads/lookup': 'leads:read',
  'GET /v1/leads/:leadId': 'leads:read',
  'PATCH /v1/leads/:leadId': 'leads:write',
  'DELETE /v1/leads/:leadId': 'leads:write',
  'POST /v1/leads/:leadId/unsubscribe': 'leads:write',
  'POST /v1/leads/:leadId/resubscribe': 'leads:write',
  'POST /v1/leads/:leadId/turnOffAi': 'leads:write',
  'POST /v1/leads/:leadId/turnOnAi': 'leads:write',
  'POST /v1/leads/:leadId/addContext': 'leads:write',
  'POST /v1/leads/:leadId/switchCustomerProfile': 'leads:write',
  'PUT /v1/leads/:leadId/tags': 'leads:write',
  'POST /v1/leads/:leadId/tags/remove': 'leads:write',
  'GET /v1/leads/:leadId/messages': 'leads:read',
  'POST /v1/leads/:leadId/sendMessage': 'messages:write',
  'POST /v1/leads/:leadId/messages/:id/resolve': 'messages:write',
  'POST /v1/inbound': 'inbound:write',
  'POST /v1/inbound/emailEvents': 'inbound:write',
  'GET /v1/leads/:leadId/consent': 'consent:read',
  'GET /v1/consent/export': 'consent:read',
  'GET /v1/leads/:leadId/context': 'leads:read',
  'GET /v1/leads/:leadId/agentTurns': 'leads:read',
  'GET /v1/leads/:leadId/events': 'leads:read',
  // Hand-offs (src/handoffs/): lead owners and hand-offs are lead work; the users' rep fields are settings.
  'PUT /v1/leads/:leadId/owner': 'leads:write',
  'POST /v1/leads/:leadId/handoff': 'leads:write',
  'POST /v1/leads/:leadId/handoff/ack': 'leads:write',
  'POST /v1/leads/:leadId/handoff/close': 'leads:write',
  'GET /v1/handoffs': 'leads:read',
  'GET /v1/users': 'settings:read',
  'GET /v1/users/:id': 'settings:read',
  'PATCH /v1/users/:id': 'settings:write',

  'GET /v1/customerProfiles': 'profiles:read',
  'POST /v1/customerProfiles': 'profiles:write',
  'GET /v1/customerProfiles/:name': 'profiles:read',
  'PATCH /v1/customerProfiles/:name': 'profiles:write',
  'DELETE /v1/customerProfiles/:name': 'profiles:write',

  'POST /v1/dnc/register': 'dnc:write',
  'GET /v1/dnc': 'dnc:read',
  'GET /v1/dnc/check': 'dnc:read',
  'POST /v1/dnc/remove': 'dnc:write',

  'POST /v1/campaigns': 'leads:write',
  'GET /v1/campaigns': 'leads:read',
  'GET /v1/campaigns/:id': 'leads:read',
  'POST /v1/campaigns/:id/pause': 'leads:write',
  'POST /v1/campaigns/:id/resume': 'leads:write',
  'POST /v1/campaigns/:id/cancel': 'leads:write',

  'GET /v1/settings': 'settings:read',
  'PATCH /v1/settings': 'settings:write',
  'POST /v1/sendingNumbers': 'settings:write',
  'GET /v1/sendingNumbers': 'settings:read',
  'GET /v1/sendingNumbers/:id': 'settings:read',
  'PATCH /v1/sendingNumbers/:id': 'settings:write',
  'DELETE /v1/sendingNumbers/:id': 'settings:write',

  'POST /v1/webhooks': 'webhooks:manage',
  'GET /v1/webhooks': 'webhooks:manage',
  'GET /v1/webhooks/:id': 'webhooks:manage',
  'PATCH /v1/webhooks/:id': 'webhooks:manage',
  'DELETE /v1/webhooks/:id': 'webhooks:manage',
  'POST /v1/webhooks/:id/rotateSecret': 'webhooks:manage',
  'GET /v1/webhooks/:id/deliveries': 'webhooks:manage',
  'GET /v1/webhooks/:id/deliveries/:deliveryId': 'webhooks:manage',
  'POST /v1/webhooks/:id/deliveries/:deliveryId/replay': 'webhooks:manage',

  'POST /v1/imports': 'leads:write',
  'GET /v1/imports/:id': 'leads:read',
  'GET /v1/imports/:id/rejects': 'leads:read',

  // Appointments (docs/appointments.md): a lead's business, under the leads scopes.
  'POST /v1/leads/:leadId/appointments': 'leads:write',
  'GET /v1/leads/:leadId/appointments': 'leads:read',
  'GET /v1/leads/:leadId/appointmentSlots': 'leads:read',
  'GET /v1/appointments': 'leads:read',
  'GET /v1/appointments/:id': 'leads:read',
  'PATCH /v1/appointments/:id': 'leads:write',
  'POST /v1/appointments/:id/cancel': 'leads:write',
  'POST /v1/appointments/:id/no-show': 'leads:write',
  'PUT /v1/users/:userId/availability': 'settings:write',
  'GET /v1/users/:userId/availability': 'settings:read',

  // Provider webhooks carry no key: each request is verified by the provider's signature instead.
  'POST /v1/providers/twilio/sms': 'public',
  'POST /v1/providers/twilio/voice/gather': 'public',
  'POST /v1/providers/twilio/status': 'public',
  'GET /v1/providers/twilio/relay': 'public',
  'POST /v1/providers/twilio/voice': 'public',
  'POST /v1/providers/twilio/relay/action': 'public',
  'POST /v1/providers/twilio/call-status': 'public',
  'POST /v1/providers/twilio/amd': 'public',
  'POST /v1/providers/twilio/whisper': 'public',
  'POST /v1/providers/twilio/transfer-status': 'public',
  'POST /v1/leads/:leadId/call': 'messages:write',
  'GET /v1/leads/:leadId/calls': 'leads:read',
  'GET /v1/calls/:id': 'leads:read',
  'GET /v1/customerProfiles/:name/voice': 'profiles:read',
  'PUT /v1/customerProfiles/:name/voice': 'profiles:write',

  'GET /v1/analytics/summary': 'analytics:read',
  'GET /v1/analytics/deliverability': 'analytics:read',
  'GET /v1/analytics/openings': 'analytics:read',
};

/**
 * Making a message go out is `messages:write`, whichever operation causes it:
 * sendMessage, and every route below, which also needs it (on top of its own
 * scope) when the request makes a message go out. A key without it gets the
 * same 403 as any out-of-scope key and nothing changes. Default keys and the
 * agent and admin roles hold both, so their requests are unaffected.
 */
export const SEND_SCOPE: Scope = 'messages:write';

interface RequestParts {
  body: unknown;
  query: unknown;
}

/**
 * When a request to the route makes a message go out: `always`; a test of the
 * validated body and query, checked before the handler runs; or `service`,
 * when only the service's transaction knows (lead creation: the profile's
 * opening, read under the lock the creation takes), so the route hands the
 * service `maySend` and the service refuses before scheduling anything.
 */
export type SendsWhen = 'always' | 'service' | ((request: RequestParts) => boolean);

const field = (value: unknown, name: string): unknown =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;

/** PATCH lead: a follow-up step scheduled (followUpStep 1..99), or a cadence given without stopping it (its current step is then scheduled). */
function schedulesFollowUp({ body }: RequestParts): boolean {
  const step = field(body, 'followUpStep');
  if (typeof step === 'number') return step > 0;
  const config = field(body, 'followUpConfig');
  return config !== undefined && config !== null && Object.keys(config).length > 0;
}

export const sendingRoutes: Record<string, SendsWhen> = {
  // The profile's opening, when it has a template and the lead's AI is on.
  'POST /v1/leads/create': 'service',
  'PATCH /v1/leads/:leadId': schedulesFollowUp,
  'POST /v1/leads/:leadId/switchCustomerProfile': ({ body }) => field(body, 'sendMessage') === true,
  // A campaign exists to send its profile's opening; resuming one sends again.
  'POST /v1/campaigns': 'always',
  'POST /v1/campaigns/:id/resume': 'always',
  'POST /v1/imports': ({ query }) => field(query, 'startConversations') === true && field(query, 'dryRun') !== true,
};

export const maySend = (scopes: readonly string[]): boolean => scopes.includes(SEND_SCOPE);

export function scopeFor(method: string, url: string): Scope | 'public' | undefined {
  return routeScopes[`${method} ${url}`];
}

export function parseScopes(list: string): Scope[] {
  const wanted = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = wanted.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  if (wanted.length === 0) throw new Error('at least one scope is required');
  return [...new Set(wanted)] as Scope[];
}
