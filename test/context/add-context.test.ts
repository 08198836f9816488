import { expect, it } from 'vitest';
import { createLead, describeEachDialect, type TestServer } from '../support/harness.js';
import { outboxFor } from '../support/events.js';

const AT_LEAST_ONE = 'At least one of context, additionalInfo, command is required';
const MISSING_LEAD = '00000000-0000-7000-8000-000000000000';
const INFO_EVENT = 'lead.additionalInfo.updated';

async function notesOf(ts: TestServer, id: string) {
  const res = await ts.acme.get(`/leads/${id}/context`);
  expect(res.status).toBe(200);
  return res.body.notes as Array<{
    id: string;
    kind: string;
    text: string;
    createdAt: string;
    consumedAt: string | null;
  }>;
}

const updatedAt = async (ts: TestServer, id: string) =>
  (await ts.server.store.db.selectFrom('leads').select('updated_at').where('id', '=', id).executeTakeFirstOrThrow())
    .updated_at;

describeEachDialect('POST /leads/{id}/addContext and GET /leads/{id}/context', (ctx) => {
  it('stores context as a note the AI reads, answers {"message":"Success"} and moves updatedAt', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const before = await updatedAt(ts, id);
    await new Promise((r) => setTimeout(r, 5));
    const res = await ts.acme.post(`/leads/${id}/addContext`, { context: 'Prefers evenings.' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    const notes = await notesOf(ts, id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toEqual({
      id: expect.any(String),
      kind: 'context',
      text: 'Prefers evenings.',
      createdAt: expect.any(String),
      consumedAt: null,
    });
    expect(new Date(notes[0]!.createdAt).toISOString()).toBe(notes[0]!.createdAt);
    expect((await updatedAt(ts, id)) > before).toBe(true);
  });

  it('stores a command as a pending note (consumedAt null)', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    expect((await ts.acme.post(`/leads/${id}/addContext`, { command: 'Follow up tomorrow at 10am.' })).status).toBe(
      200,
    );
    expect(await notesOf(ts, id)).toEqual([
      expect.objectContaining({ kind: 'command', text: 'Follow up tomorrow at 10am.', consumedAt: null }),
    ]);
  });

  it('applies all three together, context before command, and lists notes oldest first', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme, { additionalInfo: { plan: 'basic' } });
    await ts.acme.post(`/leads/${id}/addContext`, {
      context: 'first',
      command: 'second',
      additionalInfo: { budget: 500 },
    });
    await ts.acme.post(`/leads/${id}/addContext`, { context: 'third' });
    expect((await notesOf(ts, id)).map((n) => [n.kind, n.text])).toEqual([
      ['context', 'first'],
      ['command', 'second'],
      ['context', 'third'],
    ]);
    expect((await ts.acme.get(`/leads/${id}`)).body.additionalInfo).toEqual({ plan: 'basic', budget: 500 });
  });

  it('merges additionalInfo (null deletes) and emits one outbox event with the changes, none when nothing changed', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme, { additionalInfo: { a: 1, b: 'x' }, externalLeadId: 'crm-7' });
    const patch = { additionalInfo: { b: null, c: true, a: 1 } };
    expect((await ts.acme.post(`/leads/${id}/addContext`, patch)).status).toBe(200);
    expect((await ts.acme.get(`/leads/${id}`)).body.additionalInfo).toEqual({ a: 1, c: true });
    const events = await outboxFor(ts, id, INFO_EVENT);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({
      leadId: id,
      externalLeadId: 'crm-7',
      changes: { b: { old: 'x', new: null }, c: { old: null, new: true } },
    });
    expect((await ts.acme.post(`/leads/${id}/addContext`, patch)).status).toBe(200);
    expect(await outboxFor(ts, id, INFO_EVENT)).toHaveLength(1);
    expect(await notesOf(ts, id)).toEqual([]);
  });

  it.each([
    ['an empty object', {}],
    ['no body at all', undefined],
  ])('answers 400 with the contract text for %s', async (_what, body) => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const res = await ts.acme.call('POST', `/leads/${id}/addContext`, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(AT_LEAST_ONE);
  });

  it.each([
    ['an unknown field', { context: 'ok', note: 'x' }, /^note is not allowed$/],
    ['empty context', { context: '' }, /^context /],
    ['blank context', { context: '   ' }, /^context must not be blank$/],
    ['context over 10000 characters', { context: 'x'.repeat(10_001) }, /^context /],
    ['context not a string', { context: 5 }, /^context /],
    ['empty command', { command: '' }, /^command /],
    ['command over 2000 characters', { context: 'ok', command: 'x'.repeat(2001) }, /^command /],
    ['additionalInfo not an object', { additionalInfo: ['a'] }, /^additionalInfo /],
  ])('rejects %s with a 400 naming the field and stores nothing', async (_what, body, message) => {
    const ts = ctx();
    const id = await createLead(ts.acme, { additionalInfo: { keep: 1 } });
    const res = await ts.acme.post(`/leads/${id}/addContext`, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await notesOf(ts, id)).toEqual([]);
    expect((await ts.acme.get(`/leads/${id}`)).body.additionalInfo).toEqual({ keep: 1 });
  });

  it('accepts the longest allowed texts', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const res = await ts.acme.post(`/leads/${id}/addContext`, {
      context: 'c'.repeat(10_000),
      command: 'k'.repeat(2000),
    });
    expect(res.status).toBe(200);
    expect((await notesOf(ts, id)).map((n) => n.text.length)).toEqual([10_000, 2000]);
  });

  it('404s an unknown lead with the contract text on both routes', async () => {
    const { acme } = ctx();
    const expected = `Resource not found: Lead with id ${MISSING_LEAD}`;
    const post = await acme.post(`/leads/${MISSING_LEAD}/addContext`, { context: 'x' });
    expect([post.status, post.body.message]).toEqual([404, expected]);
    const get = await acme.get(`/leads/${MISSING_LEAD}/context`);
    expect([get.status, get.body.message]).toEqual([404, expected]);
  });

  it("gives another organization's lead the same 404 as a missing one and stores nothing", async () => {
    const ts = ctx();
    const id = await createLead(ts.acme, { additionalInfo: { k: 1 } });
    await ts.acme.post(`/leads/${id}/addContext`, { context: 'acme only' });
    const asMissing = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll(MISSING_LEAD, id));
    const missingPost = await ts.beta.post(`/leads/${MISSING_LEAD}/addContext`, { context: 'x' });
    const foreignPost = await ts.beta.post(`/leads/${id}/addContext`, {
      context: 'from beta',
      command: 'c',
      additionalInfo: { k: 2 },
    });
    expect(foreignPost.status).toBe(404);
    expect(foreignPost.body).toEqual(asMissing(missingPost.body));
    const missingGet = await ts.beta.get(`/leads/${MISSING_LEAD}/context`);
    const foreignGet = await ts.beta.get(`/leads/${id}/context`);
    expect(foreignGet.status).toBe(404);
    expect(foreignGet.body).toEqual(asMissing(missingGet.body));
    expect((await notesOf(ts, id)).map((n) => n.text)).toEqual(['acme only']);
    expect((await ts.acme.get(`/leads/${id}`)).body.additionalInfo).toEqual({ k: 1 });
    expect(await outboxFor(ts, id, INFO_EVENT)).toHaveLength(0);
  });

  it('answers 403 Forbidden to a leads:read key on addContext, and lets it read the notes', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const reader = await ts.clientWithScopes(['leads:read']);
    const res = await reader.post(`/leads/${id}/addContext`, { context: 'by reader' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Forbidden');
    const read = await reader.get(`/leads/${id}/context`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ notes: [] });
    const profilesOnly = await ts.clientWithScopes(['profiles:read', 'profiles:write']);
    expect((await profilesOnly.get(`/leads/${id}/context`)).status).toBe(403);
    expect((await profilesOnly.post(`/leads/${id}/addContext`, { context: 'x' })).status).toBe(403);
  });
});
