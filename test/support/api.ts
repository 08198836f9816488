/**
 * The test client's types, taken from the routes' own TypeBox response schemas: `client.get(`/leads/${id}`)`
 * answers `ApiResponse<Lead>`, so a renamed response field fails the typecheck of every test that reads it.
 *
 * `V1_RESPONSES` maps each `/v1` route (`METHOD path`, as registered, without the prefix) to the schema of its
 * success answer. `test/platform/typed-client.test.ts` checks the table against the running app's OpenAPI
 * document: every documented route is in it, with the same fields. A route missing from the table answers
 * `unknown`: a test must narrow it (`client.untyped(...)` says so on purpose, for answers no schema describes).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AgentTurn, ListTurnsReply } from '../../src/agent/turns.routes.js';
import { DeliverabilityReply, OpeningsReply, SummaryReply } from '../../src/analytics/analytics.schemas.js';
import { Appointment, AvailabilityReply, SlotsReply } from '../../src/appointments/appointments.schemas.js';
import { Call, PlaceCallReply } from '../../src/calls/calls.routes.js';
import { VoiceSettings } from '../../src/call-records/voice-settings.js';
import {
  CallReply as PlaygroundCallReply,
  PlaygroundReply,
  TextReply as PlaygroundTextReply,
} from '../../src/console-api/playground.routes.js';
import { CampaignWithCounts, ListCampaignsReply } from '../../src/campaigns/campaigns.schemas.js';
import {
  ConsoleMessagesReply,
  CreateKeyReply,
  CreateUserReply,
  InboxReply,
  KeysReply,
  ReadsReply,
  SessionReply,
  User,
  UsersReply,
} from '../../src/console-api/console.schemas.js';
import { ListNotesReply } from '../../src/context/context.schemas.js';
import { AnswersReply } from '../../src/webhooks/console.routes.js';
import { EmailEventReply, InboundReply } from '../../src/inbound/inbound.routes.js';
import { CheckDncReply, ListDncReply } from '../../src/dnc/dnc.schemas.js';
import { Handoff, ListHandoffsReply, OwnerReply, Rep, RepsReply } from '../../src/handoffs/handoffs.schemas.js';
import { ImportView } from '../../src/imports/imports.schemas.js';
import {
  CreateLeadReply,
  Lead,
  ListLeadsReply,
  LookupReply,
  ReplaceTagsReply,
  UpdateLeadReply,
} from '../../src/leads/leads.schemas.js';
import { ListMessagesReply, Message } from '../../src/messages/messages.schemas.js';
import { SendMessageReply } from '../../src/messages/send.schemas.js';
import { MessageBody, NextToken } from '../../src/platform/http/schemas.js';
import { CustomerProfile, ListProfilesReply } from '../../src/profiles/profiles.schemas.js';
import { SwitchProfileReply } from '../../src/profiles/switch.schemas.js';
import { ListSendingNumbersReply, SendingNumber } from '../../src/sending-numbers/sending-numbers.schemas.js';
import { Settings } from '../../src/settings/settings.schemas.js';
import { ConsentRecord } from '../../src/subscriptions/consent.routes.js';
import { ChannelsReply } from '../../src/subscriptions/subscriptions.schemas.js';
import { ListEventsReply } from '../../src/timeline/timeline.schemas.js';
import {
  ListDeliveriesReply,
  ListWebhooksReply,
  ReplayReply,
  WebhookDeliveryWithBody,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../src/webhooks/webhooks.schemas.js';

/** A CSV answer (text/csv): the client hands back its text. */
const Csv = Type.String();

/**
 * Each `/v1` route's success answer. Schemas a route declares inline are written out here as the route
 * writes them (the architecture check compares their fields with the route's).
 */
export const V1_RESPONSES = {
  'GET /leads/:leadId/agentTurns': ListTurnsReply,
  'GET /analytics/summary': SummaryReply,
  'GET /analytics/deliverability': DeliverabilityReply,
  'GET /analytics/openings': OpeningsReply,
  'POST /leads/:leadId/appointments': Appointment,
  'GET /leads/:leadId/appointments': Type.Object({ appointments: Type.Array(Appointment) }),
  'GET /leads/:leadId/appointmentSlots': SlotsReply,
  'GET /appointments': Type.Object({ appointments: Type.Array(Appointment) }),
  'GET /appointments/:id': Appointment,
  'PATCH /appointments/:id': Appointment,
  'POST /appointments/:id/cancel': Appointment,
  'POST /appointments/:id/no-show': Appointment,
  'PUT /users/:userId/availability': AvailabilityReply,
  'GET /users/:userId/availability': AvailabilityReply,
  'POST /leads/:leadId/call': PlaceCallReply,
  'GET /leads/:leadId/calls': Type.Object({ calls: Type.Array(Call) }),
  'GET /calls/:id': Call,
  'GET /customerProfiles/:name/voice': VoiceSettings,
  'PUT /customerProfiles/:name/voice': VoiceSettings,
  'POST /campaigns': CampaignWithCounts,
  'GET /campaigns': ListCampaignsReply,
  'GET /campaigns/:id': CampaignWithCounts,
  'POST /campaigns/:id/pause': CampaignWithCounts,
  'POST /campaigns/:id/resume': CampaignWithCounts,
  'POST /campaigns/:id/cancel': CampaignWithCounts,
  'POST /leads/:leadId/messages/:id/resolve': Message,
  'POST /leads/:leadId/addContext': MessageBody,
  'GET /leads/:leadId/context': ListNotesReply,
  'POST /inbound': InboundReply,
  'POST /inbound/emailEvents': EmailEventReply,
  'POST /dnc/register': MessageBody,
  'GET /dnc': ListDncReply,
  'GET /dnc/check': CheckDncReply,
  'POST /dnc/remove': MessageBody,
  'GET /users': RepsReply,
  'GET /users/:id': Rep,
  'PATCH /users/:id': Rep,
  'PUT /leads/:leadId/owner': OwnerReply,
  'POST /leads/:leadId/handoff': Handoff,
  'POST /leads/:leadId/handoff/ack': Handoff,
  'POST /leads/:leadId/handoff/close': Handoff,
  'GET /handoffs': ListHandoffsReply,
  'POST /imports': ImportView,
  'GET /imports/:id': ImportView,
  'GET /imports/:id/rejects': Csv,
  'POST /leads/create': CreateLeadReply,
  'GET /leads': ListLeadsReply,
  'GET /leads/lookup': LookupReply,
  'GET /leads/:leadId': Lead,
  'PATCH /leads/:leadId': UpdateLeadReply,
  'DELETE /leads/:leadId': MessageBody,
  'POST /leads/:leadId/turnOffAi': MessageBody,
  'POST /leads/:leadId/turnOnAi': MessageBody,
  'PUT /leads/:leadId/tags': ReplaceTagsReply,
  'POST /leads/:leadId/tags/remove': Type.Object({ message: Type.String(), removed: Type.Integer() }),
  'GET /leads/:leadId/messages': ListMessagesReply,
  'POST /leads/:leadId/sendMessage': SendMessageReply,
  'GET /customerProfiles': ListProfilesReply,
  'POST /customerProfiles': CustomerProfile,
  'GET /customerProfiles/:name': CustomerProfile,
  'PATCH /customerProfiles/:name': CustomerProfile,
  'DELETE /customerProfiles/:name': MessageBody,
  'POST /leads/:leadId/switchCustomerProfile': SwitchProfileReply,
  'POST /sendingNumbers': SendingNumber,
  'GET /sendingNumbers': ListSendingNumbersReply,
  'GET /sendingNumbers/:id': SendingNumber,
  'PATCH /sendingNumbers/:id': SendingNumber,
  'DELETE /sendingNumbers/:id': MessageBody,
  'GET /settings': Settings,
  'PATCH /settings': Settings,
  'GET /leads/:leadId/consent': Type.Object({ records: Type.Array(ConsentRecord), nextToken: NextToken }),
  'GET /consent/export': Csv,
  'POST /leads/:leadId/unsubscribe': ChannelsReply,
  'POST /leads/:leadId/resubscribe': ChannelsReply,
  'GET /leads/:leadId/events': ListEventsReply,
  'POST /webhooks': WebhookEndpointWithSecret,
  'GET /webhooks': ListWebhooksReply,
  'GET /webhooks/:id': WebhookEndpoint,
  'PATCH /webhooks/:id': WebhookEndpoint,
  'DELETE /webhooks/:id': MessageBody,
  'POST /webhooks/:id/rotateSecret': WebhookEndpointWithSecret,
  'GET /webhooks/:id/deliveries': ListDeliveriesReply,
  'GET /webhooks/:id/deliveries/:deliveryId': WebhookDeliveryWithBody,
  'POST /webhooks/:id/deliveries/:deliveryId/replay': ReplayReply,
} satisfies Record<string, TSchema>;

/** The console's session API (`/console/api`, hidden from the OpenAPI document). */
export const CONSOLE_RESPONSES = {
  'GET /console/api/keys': KeysReply,
  'POST /console/api/keys': CreateKeyReply,
  'GET /console/api/reads': ReadsReply,
  'GET /console/api/inbox': InboxReply,
  'GET /console/api/leads/:leadId/messages': ConsoleMessagesReply,
  'GET /console/api/webhooks/:id/deliveries/:deliveryId/answers': AnswersReply,
  'POST /console/api/login': SessionReply,
  'GET /console/api/session': SessionReply,
  'GET /console/api/users': UsersReply,
  'POST /console/api/users': CreateUserReply,
  'PATCH /console/api/users/:id': User,
  'GET /console/api/me/rep': Rep,
  'PUT /console/api/me/away': Rep,
  'POST /console/api/playground': PlaygroundReply,
  'GET /console/api/playground/:id': PlaygroundReply,
  'POST /console/api/playground/:id/messages': PlaygroundTextReply,
  'POST /console/api/playground/:id/call': PlaygroundCallReply,
} satisfies Record<string, TSchema>;

type Answers<T extends Record<string, TSchema>> = { [K in keyof T]: Static<T[K]> };
export type V1Routes = Answers<typeof V1_RESPONSES>;
export type ConsoleRoutes = Answers<typeof CONSOLE_RESPONSES>;
/** What a signed-in console session can call: its own API, and `/v1` by full path. */
export type SessionRoutes = ConsoleRoutes & {
  [K in keyof V1Routes as K extends `${infer M} ${infer P}` ? `${M} /v1${P}` : never]: V1Routes[K];
};

// The answer types tests name most, re-exported so a helper can say what it returns.
export type LeadView = Static<typeof Lead>;
export type MessageView = Static<typeof Message>;
export type AgentTurnView = Static<typeof AgentTurn>;
export type SettingsView = Static<typeof Settings>;

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** `/leads/abc?x=1` -> `['leads', 'abc']`; a `${string}` part of a template literal stays `string`. */
type Segments<P extends string> = P extends `${infer Path}?${string}`
  ? Segments<Path>
  : P extends `/${infer Head}/${infer Tail}`
    ? [Head, ...Segments<`/${Tail}`>]
    : P extends `/${infer Head}`
      ? [Head]
      : never;

/** Whether concrete segments fit a route's segments (`:param` takes any one segment). */
type Fits<Concrete extends unknown[], Pattern extends unknown[]> = Concrete extends [infer C, ...infer CRest]
  ? Pattern extends [infer Q, ...infer QRest]
    ? Q extends `:${string}`
      ? Fits<CRest, QRest>
      : [C] extends [Q]
        ? Fits<CRest, QRest>
        : false
    : false
  : Pattern extends []
    ? true
    : false;

type Matching<Table, M extends string, P extends string> = {
  [K in keyof Table]: K extends `${M} ${infer Pattern extends string}`
    ? Fits<Segments<P>, Segments<Pattern>> extends true
      ? K
      : never
    : never;
}[keyof Table];

/** A key of the table the path names with no parameter (`/leads/lookup`), else those it fits (`/leads/:leadId`). */
type RouteKey<
  Table,
  M extends string,
  P extends string,
> = `${M} ${Segments<P> extends infer S extends string[] ? `/${Join<S>}` : never}` extends infer Exact
  ? Exact extends keyof Table
    ? Exact
    : Matching<Table, M, P>
  : never;

type Join<S extends string[]> = S extends [infer H extends string, ...infer T extends string[]]
  ? T extends []
    ? H
    : `${H}/${Join<T>}`
  : '';

/** The answer a table gives for a method and a path a test calls; `unknown` when no route of the table fits. */
export type AnswerOf<Table, M extends string, P extends string> = string extends P | M
  ? unknown
  : P extends unknown // one answer per path of a union (`for (const path of [a, b] as const)`)
    ? [RouteKey<Table, M, P>] extends [never]
      ? unknown
      : Table[RouteKey<Table, M, P> & keyof Table]
    : never;

/** Every error answer: one message, and a machine-readable code on some. */
export interface ErrorFields {
  message?: string;
  code?: string;
}

/**
 * A body as a test reads it: the route's success answer, where an error's `message` and `code` may also be
 * read without narrowing (a test asserts the status first).
 */
export type Body<T> = unknown extends T ? unknown : T extends object ? T & ErrorFields : T;
