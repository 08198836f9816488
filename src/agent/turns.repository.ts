import type { Selectable } from 'kysely';
import type { AgentTurnsTable, Db } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';

export type AgentTurnRow = Selectable<AgentTurnsTable>;

export async function findTurnByTrigger(
  db: Db,
  organizationId: string,
  triggerMessageId: string,
): Promise<AgentTurnRow | undefined> {
  return db
    .selectFrom('agent_turns')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('trigger_message_id', '=', triggerMessageId)
    .executeTakeFirst();
}

/** Written with the inbound message and its job; the unique trigger makes a second one a no-op. */
export async function insertPendingTurn(
  db: Db,
  organizationId: string,
  leadId: string,
  triggerMessageId: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('agent_turns')
    .values({
      organization_id: organizationId,
      id: newId(),
      lead_id: leadId,
      trigger_message_id: triggerMessageId,
      status: 'pending',
      actions: null,
      error: null,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'trigger_message_id']).doNothing())
    .execute();
}

export interface TurnOutcome {
  status: 'done' | 'skipped' | 'failed';
  /** Action types only: the texts live in messages and on the lead, where erasure finds them. */
  actions?: string[];
  error?: string | null;
  at: string;
  /** The turn's loop, step by step (agent/turn.ts), JSON-encoded by the caller. */
  steps?: string | null;
}

/** Only a pending turn can end, and only once: a second run of the same job changes nothing. */
export async function finishTurn(
  db: Db,
  organizationId: string,
  triggerMessageId: string,
  o: TurnOutcome,
): Promise<void> {
  await db
    .updateTable('agent_turns')
    .set({
      status: o.status,
      actions: o.actions ? JSON.stringify(o.actions) : null,
      error: o.error ? o.error.slice(0, 1000) : null,
      updated_at: o.at,
      ...(o.steps ? { steps: o.steps } : {}),
    })
    .where('organization_id', '=', organizationId)
    .where('trigger_message_id', '=', triggerMessageId)
    .where('status', '=', 'pending')
    .execute();
}

/** A later message of the lead has its own turn, which will answer both. */
export async function hasNewerTurn(db: Db, organizationId: string, leadId: string, turnId: string): Promise<boolean> {
  const row = await db
    .selectFrom('agent_turns')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('id', '>', turnId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Oldest first, keyset on the time-ordered id; limit+1 rows to tell whether more exist. */
export async function listTurns(
  db: Db,
  organizationId: string,
  leadId: string,
  afterId: string | undefined,
  limit: number,
): Promise<AgentTurnRow[]> {
  let q = db
    .selectFrom('agent_turns')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId);
  if (afterId) q = q.where('id', '>', afterId);
  return q
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

/** The steps of the lead's latest finished turn that recorded any (what the lead was last offered). */
export async function lastTurnSteps(db: Db, organizationId: string, leadId: string): Promise<string | null> {
  const row = await db
    .selectFrom('agent_turns')
    .select('steps')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('status', '=', 'done')
    .where('steps', 'is not', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.steps ?? null;
}
