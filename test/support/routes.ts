import { routeScopes } from '../../src/platform/auth/scopes.js';
import type { TestServer } from './harness.js';
import { uniquePhone } from './harness.js';

export interface RouteEntry {
  method: string;
  /** As registered, e.g. `/v1/leads/:leadId`. */
  url: string;
  scope: string;
}

/** Every row of the route -> scope table (src/platform/auth/scopes.ts). */
export function scopeTable(): RouteEntry[] {
  return Object.entries(routeScopes).map(([key, scope]) => {
    const [method, url] = key.split(' ') as [string, string];
    return { method, url, scope };
  });
}

/** Rows of the table whose route the running app has registered (others are still being built). */
export function registeredRoutes(ts: TestServer): RouteEntry[] {
  return scopeTable().filter((r) => ts.server.app.hasRoute({ method: r.method as 'GET', url: r.url }));
}

/** The path a client calls (without `/v1`), with a lead id, the `default` profile and a made-up id for any other parameter. */
export function concretePath(url: string, leadId: string): string {
  const path = url
    .replace(/^\/v1/, '')
    .replace(':leadId', encodeURIComponent(leadId))
    .replace(':name', 'default')
    .replace(/:[A-Za-z]+/g, '00000000-0000-7000-8000-0000000000ff');
  if (path === '/leads/lookup' || path === '/dnc/check') return `${path}?phone=${encodeURIComponent(uniquePhone())}`;
  if (path === '/consent/export') return `${path}?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z`;
  if (path === '/appointments') return `${path}?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z`;
  return path;
}

/** A body that passes each route's validation, so a request reaches its lead (or scope) check. */
export function sampleBody(method: string, url: string): unknown {
  if (method === 'GET' || method === 'DELETE') return undefined;
  const bodies: Record<string, unknown> = {
    'POST /v1/leads/create': { firstName: 'Sam', phone: uniquePhone() },
    'PATCH /v1/leads/:leadId': { firstName: 'Changed' },
    'POST /v1/leads/:leadId/addContext': { context: 'Prefers mornings' },
    'POST /v1/leads/:leadId/switchCustomerProfile': { profile: 'default' },
    'PUT /v1/leads/:leadId/tags': { tagIds: [] },
    'POST /v1/leads/:leadId/tags/remove': { tagIds: ['00000000-0000-7000-8000-00000000000a'] },
    'POST /v1/leads/:leadId/sendMessage': { message: 'Hello' },
    'POST /v1/leads/:leadId/messages/:id/resolve': { outcome: 'sent' },
    'POST /v1/dnc/register': { phone: uniquePhone() },
    'POST /v1/dnc/remove': { phone: uniquePhone() },
    'POST /v1/inbound/emailEvents': { event: 'bounce', email: 'nobody@example.com' },
    'POST /v1/customerProfiles': { name: `p-${Math.random().toString(36).slice(2, 8)}` },
    'PATCH /v1/customerProfiles/:name': { description: 'x' },
    'PATCH /v1/settings': { smsVoiceOptOutCoupled: false },
    'POST /v1/webhooks': { url: 'https://example.com/hook' },
    'PATCH /v1/webhooks/:id': { description: 'x' },
    'POST /v1/sendingNumbers': { number: uniquePhone(), kind: 'longCode' },
    'PATCH /v1/sendingNumbers/:id': { ratePerSecond: 2 },
    // A tag nobody carries: the campaign enrolls no lead and sends nothing.
    'POST /v1/campaigns': {
      name: 'sample',
      customerProfile: 'default',
      dailyCap: 1,
      filter: { tags: ['sample-tag-nobody-has'] },
    },
    'PUT /v1/leads/:leadId/owner': { userId: null },
    'PATCH /v1/users/:id': { isAway: false },
    'POST /v1/leads/:leadId/appointments': { start: '2030-01-07T15:00:00Z' },
    'PATCH /v1/appointments/:id': { start: '2030-01-07T15:00:00Z' },
    'PUT /v1/users/:userId/availability': { timeZone: 'America/New_York', weeklyHours: { mon: [['09:00', '17:00']] } },
  };
  return bodies[`${method} ${url}`] ?? {};
}
