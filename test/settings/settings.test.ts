import { expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { describeEachDialect } from '../support/harness.js';

// A new organization's zone is written down at creation (never a silent UTC): the CLI's --time-zone, else America/New_York.
const DEFAULTS = {
  smsVoiceOptOutCoupled: false,
  timeZone: 'America/New_York',
  contactHours: { start: '08:00', end: '21:00' },
  contactDays: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
  holidays: [],
  regionalRules: true,
  replyWindowMinutes: 15,
  frequencyCap: null,
  optOutKeywords: [],
  optInKeywords: [],
  externalCheck: null,
  helpText: 'Reply STOP to stop receiving messages, START to receive them again.',
  stopConfirmation: {
    en: 'You have been unsubscribed and will not receive more messages. Reply START to resubscribe.',
    es: 'Se ha dado de baja y no recibirá más mensajes. Responda ALTA para volver a suscribirse.',
  },
  sendingNumber: null,
  sendingNumberUnusableAt: null,
  sendingNumberUnusableCode: null,
  filteredPause: { percent: 5, window: 200 },
  assignment: { mode: 'none', pool: [], on: 'handoff', ackWithinMinutes: 10 },
  inboundLeads: null,
};

describeEachDialect('GET/PATCH /settings', (ctx) => {
  it('starts from the defaults', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['settings:read'], 'settings-defaults');
    const res = await org.get('/settings');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULTS);
  });

  it('changes only the fields sent, answers the whole document, and keeps it per organization', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['settings:read', 'settings:write'], 'settings-change');
    const res = await org.patch('/settings', {
      smsVoiceOptOutCoupled: true,
      contactHours: { start: '09:30', end: '18:00' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...DEFAULTS,
      smsVoiceOptOutCoupled: true,
      contactHours: { start: '09:30', end: '18:00' },
    });
    const second = await org.patch('/settings', { timeZone: 'America/New_York' });
    expect(second.body).toEqual({
      ...DEFAULTS,
      smsVoiceOptOutCoupled: true,
      contactHours: { start: '09:30', end: '18:00' },
      timeZone: 'America/New_York',
    });
    expect((await org.get('/settings')).body).toEqual(second.body);
    expect((await ts.beta.get('/settings')).body).toEqual(DEFAULTS);
  });

  it.each([
    [{}, /^body must set at least one of: /],
    [{ colour: 'red' }, 'colour is not allowed'],
    [{ smsVoiceOptOutCoupled: 'yes' }, 'smsVoiceOptOutCoupled must be true or false'],
    [{ timeZone: 'Atlantis/Capital' }, 'timeZone is not a known IANA time zone'],
    [
      { contactHours: { start: '8am', end: '21:00' } },
      'contactHours.start must be a time of day written HH:MM (24-hour), like 08:00',
    ],
    [{ contactHours: { start: '08:00' } }, 'contactHours.end is required'],
    [{ helpText: '' }, 'helpText must not be empty'],
    [{ replyWindowMinutes: 61 }, 'replyWindowMinutes must be a whole number of minutes from 0 to 60'],
    [{ replyWindowMinutes: -1 }, 'replyWindowMinutes must be a whole number of minutes from 0 to 60'],
    [{ replyWindowMinutes: 7.5 }, 'replyWindowMinutes must be a whole number of minutes from 0 to 60'],
  ])('rejects %j with a 400 naming the field, and changes nothing', async (body, message) => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['settings:read', 'settings:write'], 'settings-invalid');
    expectError(await org.patch('/settings', body), 400, message);
    expect((await org.get('/settings')).body).toEqual(DEFAULTS);
  });

  it('takes a reply window from 0 to 60 minutes, and regional rules off', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['settings:read', 'settings:write'], 'settings-reply-window');
    for (const replyWindowMinutes of [0, 60, 5]) {
      const res = await org.patch('/settings', { replyWindowMinutes, regionalRules: false });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...DEFAULTS, replyWindowMinutes, regionalRules: false });
    }
    expect((await org.get('/settings')).body).toMatchObject({ replyWindowMinutes: 5, regionalRules: false });
  });

  it('loses no field when patches of different fields race', async () => {
    const ts = ctx();
    for (let round = 0; round < 5; round++) {
      const org = await ts.clientWithScopes(['settings:read', 'settings:write'], `settings-race-${round}`);
      const patches = [
        { smsVoiceOptOutCoupled: true },
        { timeZone: 'Asia/Tokyo' },
        { contactHours: { start: '10:00', end: '16:00' } },
        { helpText: 'Call us.' },
      ];
      const results = await Promise.all(patches.map((p) => org.patch('/settings', p)));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect((await org.get('/settings')).body).toEqual({ ...DEFAULTS, ...Object.assign({}, ...patches) });
    }
  });

  it('takes the STOP confirmation per language; one language alone keeps the other', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(
      ['settings:read', 'settings:write'],
      `stopconf-${Math.random().toString(36).slice(2, 8)}`,
    );
    const es = 'Listo: no le escribiremos más. Responda ALTA para volver.';
    const res = await org.patch('/settings', { stopConfirmation: { es } });
    expect(res.status).toBe(200);
    expect(res.body.stopConfirmation).toEqual({ en: DEFAULTS.stopConfirmation.en, es });
    expect(
      (await org.patch('/settings', { stopConfirmation: { en: 'Done. Reply START to undo.' } })).body.stopConfirmation,
    ).toEqual({ en: 'Done. Reply START to undo.', es });
    for (const bad of [{}, { es: '' }, { fr: 'Arrêté.' }]) {
      expect((await org.patch('/settings', { stopConfirmation: bad })).status).toBe(400);
    }
    expect((await org.get('/settings')).body.stopConfirmation).toEqual({ en: 'Done. Reply START to undo.', es });
  });

  it('takes the compliance settings: contact days, holidays, regional rules, a frequency cap, keywords (deduplicated) and an external check whose secret is never shown', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['settings:read', 'settings:write'], 'settings-compliance');
    const res = await org.patch('/settings', {
      contactDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      holidays: ['2026-12-25'],
      regionalRules: true,
      frequencyCap: { maxAutomatedPerDay: 3 },
      optOutKeywords: ['Basta', 'basta ', 'NO MORE'],
      optInKeywords: ['rejoin'],
      externalCheck: { url: 'https://compliance.example.com/check', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      contactDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      holidays: ['2026-12-25'],
      regionalRules: true,
      frequencyCap: { maxAutomatedPerDay: 3 },
      optOutKeywords: ['Basta', 'NO MORE'],
      optInKeywords: ['rejoin'],
      externalCheck: {
        url: 'https://compliance.example.com/check',
        timeoutMs: 3000,
        failureMode: 'closed',
        secretSet: true,
      },
    });
    expect(JSON.stringify((await org.get('/settings')).body)).not.toContain('c2VjcmV0');
    expect((await org.patch('/settings', { externalCheck: null, frequencyCap: null })).body).toMatchObject({
      externalCheck: null,
      frequencyCap: null,
    });
    for (const bad of [
      { contactDays: [] },
      { contactDays: ['funday'] },
      { holidays: ['2026-13-01'] },
      { frequencyCap: { maxAutomatedPerDay: 0 } },
      { optOutKeywords: [' '] },
    ]) {
      expect((await org.patch('/settings', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await org.get('/settings')).body.contactDays).toEqual(['mon', 'tue', 'wed', 'thu', 'fri']);
  });

  it('needs settings:write to change and settings:read to read', async () => {
    const ts = ctx();
    const reader = await ts.clientWithScopes(['settings:read'], 'settings-scopes');
    expectError(await reader.patch('/settings', { smsVoiceOptOutCoupled: true }), 403, 'Forbidden');
    const writer = await ts.clientWithScopes(['settings:write'], 'settings-scopes');
    expectError(await writer.get('/settings'), 403, 'Forbidden');
    expect((await reader.get('/settings')).body.smsVoiceOptOutCoupled).toBe(false);
  });
});
