import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { requireLead } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { decodeCursor, page } from '../platform/http/pagination.js';
import { LeadIdParams, NextToken, PageQuery, withErrors } from '../platform/http/schemas.js';
import { listTurns, type AgentTurnRow } from './turns.repository.js';
import type { AgentStep } from './provider.js';

export const AgentTurn = Type.Object({
  id: Type.String({ format: 'uuid' }),
  triggerMessageId: Type.String({ format: 'uuid', description: 'The inbound message the turn answered' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('done'), Type.Literal('skipped'), Type.Literal('failed')], {
    description:
      'pending: queued or thinking; done: actions applied; skipped: the AI was off or a newer message superseded it; failed: no valid answer after every retry (nothing was sent)',
  }),
  actions: Type.Array(Type.String(), { description: 'Types of the actions applied, in order' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the turn failed or was skipped' }),
  steps: Type.Array(
    Type.Object({
      calls: Type.Array(Type.Object({ tool: Type.String(), ok: Type.Boolean(), result: Type.Unknown() })),
    }),
    {
      description:
        "The turn's loop: the tools each step called and what they answered (calendar tools run within the turn)",
    },
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
type AgentTurnView = Static<typeof AgentTurn>;

const ListTurnsQuery = Type.Object({ ...PageQuery });
export const ListTurnsReply = Type.Object({ turns: Type.Array(AgentTurn), nextToken: NextToken });

function stepsView(steps: string | null | undefined): AgentTurnView['steps'] {
  if (!steps) return [];
  const parsed = JSON.parse(steps) as AgentStep[];
  return parsed.map((s) => ({ calls: s.results.map((r) => ({ tool: r.name, ok: r.ok, result: r.result })) }));
}

function toView(r: AgentTurnRow): AgentTurnView {
  const actions: unknown = r.actions ? JSON.parse(r.actions) : [];
  return {
    id: r.id,
    triggerMessageId: r.trigger_message_id,
    status: r.status,
    actions: Array.isArray(actions) ? actions.map(String) : [],
    error: r.error,
    steps: stepsView(r.steps),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export const agentTurnRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/leads/:leadId/agentTurns',
      {
        schema: {
          tags: ['leads'],
          summary: "The AI agent's turns for a lead, oldest first (what it did, what it skipped, what failed)",
          params: LeadIdParams,
          querystring: ListTurnsQuery,
          response: withErrors({ 200: ListTurnsReply }, 'invalid_cursor'),
        },
      },
      async (req) => {
        const { organizationId } = req.auth;
        await requireLead(deps.db, organizationId, req.params.leadId);
        const limit = req.query.limit ?? 100;
        const rows = await listTurns(
          deps.db,
          organizationId,
          req.params.leadId,
          decodeCursor(req.query.nextToken),
          limit,
        );
        const { items, nextToken } = page(rows, limit);
        return { turns: items.map(toView), nextToken };
      },
    );
  };
