import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import type { Deps } from './platform/deps.js';
import { registerAuthentication } from './platform/auth/authenticate.js';
import { registerEmptyBodyDefault, registerJsonParser } from './platform/http/body.js';
import { registerClosedBodies } from './platform/http/closed-bodies.js';
import { answerFrameworkError, MAX_PATH_PARAM_LENGTH, registerErrorHandling } from './platform/http/errors.js';
import { registerIdempotency } from './platform/http/idempotency.js';
import { registerOpenApi, registerOpenApiRoute } from './platform/http/openapi.js';
import { fastifyTrustProxy } from './platform/http/trust-proxy.js';
import { lazyRequestLogger } from './platform/http/request-logger.js';
import { ErrorBody } from './platform/http/schemas.js';
import { validatorCompiler } from './platform/http/validation.js';
import { Lead } from './leads/leads.schemas.js';
import { leadRoutes } from './leads/leads.routes.js';
import { dncRoutes } from './dnc/dnc.routes.js';
import { analyticsRoutes } from './analytics/analytics.routes.js';
import { Message } from './messages/messages.schemas.js';
import { messageRoutes } from './messages/messages.routes.js';
import { sendRoutes } from './messages/send.routes.js';
import { CustomerProfile } from './profiles/profiles.schemas.js';
import { profileRoutes } from './profiles/profiles.routes.js';
import { switchProfileRoutes } from './profiles/switch.routes.js';
import { contextRoutes } from './context/context.routes.js';
import { agentTurnRoutes } from './agent/turns.routes.js';
import { appointmentRoutes } from './appointments/appointments.routes.js';
import { timelineRoutes } from './timeline/timeline.routes.js';
import { emailEventRoutes, inboundRoutes } from './inbound/inbound.routes.js';
import { handleInbound, handleProviderInbound } from './inbound/inbound.js';
import { unsubscribeLinkRoutes } from './channels/unsubscribe.routes.js';
import { inDoubtRoutes } from './channels/in-doubt.routes.js';
import { twilioRoutes } from './providers/twilio/twilio.routes.js';
import { callRoutes } from './calls/calls.routes.js';
import { relayRoutes } from './calls/relay.routes.js';
import { callWebhookRoutes } from './calls/call-webhooks.routes.js';
import { Settings } from './settings/settings.schemas.js';
import { settingsRoutes } from './settings/settings.routes.js';
import { consentRoutes } from './subscriptions/consent.routes.js';
import { subscriptionRoutes } from './subscriptions/subscriptions.routes.js';
import { campaignRoutes } from './campaigns/campaigns.routes.js';
import { consoleWebhookRoutes } from './webhooks/console.routes.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';
import { sendingNumberRoutes } from './sending-numbers/sending-numbers.routes.js';
import { ping } from './platform/db/ping.js';
import { importRoutes } from './imports/imports.routes.js';
import { resolveSession } from './users/sessions.service.js';
import { registerSessionGuard } from './console-api/guard.js';
import { registerConsoleHeaders } from './console-api/headers.js';
import { consoleSessionRoutes } from './console-api/session.routes.js';
import { consoleUserRoutes } from './console-api/users.routes.js';
import { consoleKeyRoutes } from './console-api/keys.routes.js';
import { consoleInboxRoutes } from './console-api/inbox.routes.js';
import { consoleReadRoutes } from './console-api/reads.routes.js';
import { consoleEventRoutes } from './console-api/events.routes.js';
import { consoleStaticRoutes } from './console-api/static.routes.js';
import { consolePlaygroundRoutes } from './console-api/playground.routes.js';
import { handoffRoutes } from './handoffs/handoffs.routes.js';
import { consoleRepRoutes } from './handoffs/me.routes.js';
import { Handoff, Rep } from './handoffs/handoffs.schemas.js';

/** Messages bigger than this are neither ConversationRelay's nor the playground's. */
const MAX_WEBSOCKET_MESSAGE_BYTES = 64 * 1024;

/** Builds the HTTP app without listening (tests and server.ts both use it). */
export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    // Fastify's own request lines are off: the onResponse hook below writes the access line.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    // Behind reverse proxies that set X-Forwarded-Proto/-For (PARLEY_TRUST_PROXY): the console's cookie gets Secure over https, throttling sees the client.
    trustProxy: fastifyTrustProxy(deps.config.console.trustProxy),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Responses are built by explicit mappers, so plain JSON.stringify is enough; compiling a
  // fast-json-stringify serializer per route and status would cost seconds at start-up.
  // The response schemas still document every answer and are checked by the test suites.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerJsonParser(app);
  registerEmptyBodyDefault(app);
  registerClosedBodies(app);
  registerErrorHandling(app);
  registerAuthentication(app, deps, (token) => resolveSession(deps, token));
  registerIdempotency(app, deps);
  await registerOpenApi(app);
  for (const schema of [ErrorBody, Lead, Message, CustomerProfile, Settings, Rep, Handoff]) app.addSchema(schema);

  // One access line per request (route pattern, never the raw URL and its query), and no cost at all below info.
  if (deps.log.isLevelEnabled('info')) {
    app.addHook('onResponse', (req, reply, done) => {
      req.log.info(
        {
          method: req.method,
          route: req.routeOptions.url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
      done();
    });
  }

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await ping(deps.db);
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ message: 'Database unavailable' });
    }
  });

  // WebSockets (ConversationRelay's, the console playground's), once for the whole server: the plugin routes every upgrade.
  await app.register(websocket, { options: { maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES } });
  await app.register(
    async (v1) => {
      registerOpenApiRoute(v1);
      await v1.register(leadRoutes(deps));
      await v1.register(handoffRoutes(deps));
      await v1.register(subscriptionRoutes(deps));
      await v1.register(consentRoutes(deps));
      await v1.register(webhookRoutes(deps));
      await v1.register(settingsRoutes(deps));
      await v1.register(profileRoutes(deps));
      await v1.register(switchProfileRoutes(deps));
      await v1.register(contextRoutes(deps));
      await v1.register(agentTurnRoutes(deps));
      await v1.register(timelineRoutes(deps));
      await v1.register(dncRoutes(deps));
      await v1.register(analyticsRoutes(deps));
      await v1.register(messageRoutes(deps));
      await v1.register(sendRoutes(deps));
      await v1.register(inDoubtRoutes(deps));
      await v1.register(inboundRoutes(deps));
      await v1.register(emailEventRoutes(deps));
      await v1.register(unsubscribeLinkRoutes(deps));
      await v1.register(twilioRoutes(deps, { handleInbound, handleProviderInbound }, [callWebhookRoutes(deps)]));
      await v1.register(sendingNumberRoutes(deps));
      await v1.register(campaignRoutes(deps));
      await v1.register(importRoutes(deps));
      await v1.register(callRoutes(deps));
      await v1.register(relayRoutes(deps));
      await v1.register(appointmentRoutes(deps));
    },
    { prefix: '/v1' },
  );

  // The operator console (docs/console.md): its session API, and the built single-page app.
  registerConsoleHeaders(app);
  await app.register(
    async (consoleApi) => {
      registerSessionGuard(consoleApi, deps);
      await consoleApi.register(consoleSessionRoutes(deps));
      await consoleApi.register(consoleUserRoutes(deps));
      await consoleApi.register(consoleKeyRoutes(deps));
      await consoleApi.register(consoleReadRoutes(deps));
      await consoleApi.register(consoleInboxRoutes(deps));
      await consoleApi.register(consoleEventRoutes(deps));
      await consoleApi.register(consoleRepRoutes(deps));
      await consoleApi.register(consolePlaygroundRoutes(deps));
      await consoleApi.register(consoleWebhookRoutes(deps));
    },
    { prefix: '/console/api' },
  );
  await app.register(consoleStaticRoutes(deps));

  return app;
}
