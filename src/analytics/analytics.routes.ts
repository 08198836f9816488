import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../platform/deps.js';
import { withErrors } from '../platform/http/schemas.js';
import {
  DeliverabilityReply,
  OpeningsQuery,
  OpeningsReply,
  RangeQuery,
  SummaryQuery,
  SummaryReply,
} from './analytics.schemas.js';
import * as analytics from './analytics.service.js';

/** JSON, or the same report as CSV when asked (`?format=csv` or `Accept: text/csv`); errors stay JSON. */
const wantsCsv = (req: FastifyRequest, format: string | undefined) =>
  format === 'csv' || (format === undefined && (req.headers.accept ?? '').includes('text/csv'));

function reportOf<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  format: string | undefined,
  body: T,
  csv: (b: T) => string,
  name: string,
) {
  if (!wantsCsv(req, format)) return body;
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .send(csv(body));
}

export const analyticsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['analytics'];

    app.get(
      '/analytics/summary',
      {
        schema: {
          tags,
          summary:
            'The funnel and speed to lead per group (day, profile, campaign, sendingNumber, source) over UTC days from..to',
          querystring: SummaryQuery,
          response: withErrors({ 200: SummaryReply }, 'invalid_range'),
        },
      },
      async (req, reply) => {
        const body = await analytics.summary(
          deps,
          req.auth.organizationId,
          req.query.from,
          req.query.to,
          req.query.groupBy,
        );
        return reportOf(
          req,
          reply,
          req.query.format,
          body,
          analytics.summaryCsv,
          `analytics-summary-${req.query.from}-${req.query.to}`,
        );
      },
    );

    app.get(
      '/analytics/deliverability',
      {
        schema: {
          tags,
          summary: 'Per sending number: sent, delivered %, failures by code and class, over UTC days from..to',
          querystring: RangeQuery,
          response: withErrors({ 200: DeliverabilityReply }, 'invalid_range'),
        },
      },
      async (req, reply) => {
        const body = await analytics.deliverability(deps, req.auth.organizationId, req.query.from, req.query.to);
        return reportOf(
          req,
          reply,
          req.query.format,
          body,
          analytics.deliverabilityCsv,
          `analytics-deliverability-${req.query.from}-${req.query.to}`,
        );
      },
    );

    app.get(
      '/analytics/openings',
      {
        schema: {
          tags,
          summary:
            "A profile's opening variants (A/B): sent, replied, qualified, booked, opted out, rates with 95 % Wilson intervals",
          querystring: OpeningsQuery,
          response: withErrors({ 200: OpeningsReply }, 'invalid_range'),
        },
      },
      async (req, reply) => {
        const body = await analytics.openings(deps, req.auth.organizationId, req.query.profile);
        return reportOf(
          req,
          reply,
          req.query.format,
          body,
          analytics.openingsCsv,
          `analytics-openings-${req.query.profile}`,
        );
      },
    );
  };
