/**
 * Every error code the server answers, with its status and its message
 * template: the one list a client can rely on. `DomainError` takes only a code
 * of this list (an unknown code fails the typecheck), the OpenAPI document
 * lists each operation's codes from it, and docs/api.md has its table (a test
 * renders the table from here and compares). A code is part of the answer
 * `{message, code}` (docs/contract.md): never rename one, and never change a
 * text the contract fixes.
 *
 * A template is a text, or a function of the values it names. A few codes
 * cover one kind of mistake said in several sentences (which field, which
 * bound): their template takes the sentence as `detail`.
 */

type Detail = { detail: string };

const e = <S extends ErrorStatus, M extends string | ((p: never) => string)>(status: S, when: string, message: M) => ({
  status,
  when,
  message,
});

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 414 | 415 | 422 | 429;

export const ERRORS = {
  // Any route: how the request was sent.
  invalid_request: e(
    400,
    'a field, query or path parameter does not fit the schema; the message names it',
    (p: Detail) => p.detail,
  ),
  invalid_json: e(
    400,
    'the body is not JSON, not UTF-8, too deep, or holds text no database stores alike',
    (p?: Detail) => p?.detail ?? 'Body is not valid JSON',
  ),
  bad_content_length: e(400, 'Content-Length disagrees with the body', 'Content-Length does not match the body'),
  bad_url: e(400, 'the URL cannot be routed (bad percent-encoding)', 'Bad Request: the URL is not valid'),
  bad_request: e(400, 'any other malformed request; the message says what', (p?: Detail) => p?.detail ?? 'Bad Request'),
  invalid_cursor: e(400, 'nextToken is not one this list gave', 'nextToken is not a valid cursor'),
  invalid_idempotency_key: e(
    400,
    'Idempotency-Key is malformed',
    'Idempotency-Key must be 1 to 255 printable ASCII characters',
  ),
  forbidden: e(
    403,
    'the key is missing, unknown, revoked or lacks the scope (the log says which); a provider webhook is not signed',
    'Forbidden',
  ),
  not_found: e(
    404,
    'the resource does not exist in this organization, or no route has this path',
    (p?: { resource: string; key: 'id' | 'name' | 'phone'; value: string }) =>
      p ? `Resource not found: ${p.resource} with ${p.key} ${p.value}` : 'Not Found',
  ),
  idempotency_in_progress: e(
    409,
    'a request with this Idempotency-Key is still running',
    'A request with this Idempotency-Key is still in progress',
  ),
  body_too_large: e(
    413,
    'the body is over the limit (1 MiB of JSON; PARLEY_IMPORT_BODY_LIMIT_BYTES of CSV)',
    (p?: { limit: number }) =>
      p
        ? `The CSV file is larger than the import limit of ${p.limit} bytes (PARLEY_IMPORT_BODY_LIMIT_BYTES)`
        : 'Payload Too Large',
  ),
  uri_too_long: e(
    414,
    'a path parameter is longer than the router takes',
    (p: { max: number }) => `URI Too Long: a path parameter is longer than ${p.max} characters`,
  ),
  unsupported_media_type: e(415, 'the body is not of the type the operation takes', (p?: { expected: 'csv' }) =>
    p
      ? 'Unsupported Media Type: send the CSV file as the body with Content-Type: text/csv'
      : 'Unsupported Media Type: send Content-Type: application/json',
  ),
  idempotency_key_reused: e(
    422,
    'the Idempotency-Key was used with another request',
    'Idempotency-Key was already used with a different request',
  ),
  rate_limited: e(
    429,
    'too many requests for this key, or too many failed sign-ins (with Retry-After)',
    (p?: { seconds: number }) =>
      p ? `Too many failed sign-ins: try again in ${p.seconds} seconds.` : 'Too Many Requests',
  ),

  // Fields whose value is checked beyond the schema.
  invalid_phone: e(
    400,
    'a phone number that no country numbers so',
    (p: { field: string }) => `${p.field} is not a valid phone number`,
  ),
  invalid_time_zone: e(
    400,
    'not an IANA time zone',
    (p: { field: string }) => `${p.field} is not a known IANA time zone`,
  ),
  invalid_time: e(
    400,
    'a date-time without its offset, or not one',
    (p: { field: string }) =>
      `${p.field} must be a date and time in ISO 8601 with its offset, like 2026-01-31T09:00:00Z`,
  ),
  invalid_date: e(
    400,
    'not an ISO 8601 timestamp',
    (p: { field: string }) => `${p.field} must be an ISO 8601 timestamp such as 2026-05-14T15:00:00Z`,
  ),
  invalid_range: e(400, 'a from..to range that is reversed, malformed or too long', (p: Detail) => p.detail),
  invalid_schedule: e(
    400,
    'a time more than a year ahead',
    (p: { field: string }) => `${p.field} must be within a year`,
  ),
  invalid_url: e(400, 'a URL that is not absolute, or not https', (p: Detail) => p.detail),
  unsafe_url: e(
    400,
    'a webhook URL that points to a private, loopback or link-local address, or is not https',
    (p: Detail) => p.detail,
  ),
  invalid_hours: e(
    400,
    'a weekly range that does not start before it ends',
    (p: { field: string }) => `${p.field}: each range must start before it ends`,
  ),

  // Leads.
  no_channel: e(400, 'a lead with neither phone nor email', 'A lead needs a phone or an email'),
  duplicate_phone: e(
    409,
    'another lead of the organization has this phone',
    (p: { phone: string }) => `A lead with phone ${p.phone} already exists`,
  ),
  unknown_tag: e(
    400,
    'tag ids that are not tags of the organization',
    (p: { ids: string }) => `tagIds has ids that are not tags of this organization: ${p.ids}`,
  ),
  invalid_search: e(400, 'a blank search', 'search must not be blank'),
  invalid_combination: e(
    400,
    'createdSince/updatedSince with the search options',
    'createdSince and updatedSince cannot be combined with sort, search, aiOn, tag, profile, hasMessages or needsAttention',
  ),
  invalid_follow_up: e(400, 'a followUpConfig or followUpStep that does not fit', (p: Detail) => p.detail),

  // Sending and opt-outs.
  channel_unavailable: e(
    400,
    'the lead has no address on the channel asked for',
    (p: { missing: 'phone' | 'email' }) => `Lead has no ${p.missing}`,
  ),
  keyword_opt_out: e(
    409,
    'a resubscribe of a channel only the lead can opt back in to',
    (p: { channels: string; why: string }) => `The lead opted out of ${p.channels} ${p.why}`,
  ),
  not_in_doubt: e(
    409,
    'resolving a message that is not in doubt',
    (p: { id: string; status: string }) =>
      `Message ${p.id} is not in doubt waiting for an operator (its status is ${p.status}): there is nothing to resolve`,
  ),

  // Timeline.
  since_required: e(
    400,
    'GET events without since',
    'since is required: an ISO 8601 timestamp such as 2026-05-14T15:00:00Z (events updated at or after it are listed)',
  ),
  invalid_since: e(400, 'since is not a timestamp', 'since must be an ISO 8601 timestamp such as 2026-05-14T15:00:00Z'),
  invalid_types: e(
    400,
    'types names an unknown event type',
    (p: { allowed: string }) => `types must be a comma-separated list of: ${p.allowed}`,
  ),

  // Customer profiles.
  duplicate_profile: e(
    409,
    'a profile of this name exists',
    (p: { name: string }) => `A customer profile named ${p.name} already exists`,
  ),
  default_profile: e(409, 'deleting the default profile', 'The default customer profile cannot be deleted'),
  profile_in_use: e(
    409,
    'deleting a profile leads still use',
    (p: { name: string; leads: number }) =>
      `Customer profile ${p.name} is used by ${p.leads} lead(s); switch them to another profile before deleting it`,
  ),
  duplicate_variant: e(400, 'two opening variants with one name', 'openingVariants: each variant needs its own name'),

  // Sending numbers and calls.
  sending_number_taken: e(
    409,
    'the number belongs to another organization',
    (p: { number: string }) => `Sending number ${p.number} is already used by another organization`,
  ),
  sending_number_exists: e(
    409,
    "the number is in the organization's pool",
    (p: { number: string }) => `Sending number ${p.number} is already in this organization's pool`,
  ),
  no_sending_number: e(
    400,
    'a call before a sending number is set',
    'no sending number: set sendingNumber with PATCH /v1/settings before calling',
  ),
  voice_not_configured: e(
    400,
    'a call on a server without Twilio credentials',
    'Twilio is not configured on this server: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN to place calls',
  ),
  call_first_needs_twilio: e(
    400,
    "a profile's callFirst on a server without Twilio credentials",
    'callFirst needs Twilio: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN on this server to open leads by a call',
  ),
  unknown_inbound_profile: e(
    400,
    'settings inboundLeads naming a customer profile that does not exist',
    (p: { name: string }) => `inboundLeads.customerProfile: no customer profile named ${p.name}`,
  ),
  not_configured: e(
    404,
    'a Twilio webhook on a server without Twilio credentials',
    'Twilio is not configured on this server',
  ),
  unknown_number: e(
    404,
    'a Twilio webhook for a number no organization has',
    (p: { number: string }) => `No organization has the sending number ${p.number}`,
  ),

  // Hand-offs and users.
  unknown_user: e(400, 'a user id that is not a (usable) user of the organization', (p: Detail) => p.detail),
  conflict: e(409, 'a user change that would clash (an email in use, acting on oneself)', (p: Detail) => p.detail),

  // Settings and calendar.
  calcom_required: e(
    400,
    'provider calcom without its settings',
    'calendar.calcom {baseUrl, apiKey, eventTypeId} is required with provider calcom',
  ),

  // Appointments.
  unknown_owner: e(
    400,
    'ownerId is not a user of the organization',
    (p: { id: string }) => `ownerId ${p.id} is not a user of this organization`,
  ),
  window_too_long: e(
    400,
    'a slot window over the maximum',
    (p: { days: number }) => `the window may span at most ${p.days} days`,
  ),
  invalid_window: e(400, 'to is not after from', 'to must be after from'),
  invalid_start: e(400, 'start is not a date-time', 'start must be an ISO 8601 date-time'),
  start_in_past: e(400, 'start is not in the future', 'start must be in the future'),
  lead_has_no_email: e(400, 'a Cal.com booking for a lead without email', "Cal.com needs the lead's email to book"),
  slot_taken: e(
    409,
    'the slot was booked meanwhile',
    (p: { start: string }) => `The slot starting ${p.start} is no longer free; choose another one`,
  ),
  appointment_not_booked: e(
    409,
    'changing an appointment that is cancelled or marked no-show',
    (p: Detail) => p.detail,
  ),
  not_started: e(409, 'marking no-show before the start', 'An appointment can be marked no-show once it has started'),
  calendar_unavailable: e(422, 'the calendar provider refused or could not be reached', (p: Detail) => p.detail),

  // Campaigns.
  invalid_filter: e(
    400,
    'createdAfter is not before createdBefore',
    'filter.createdAfter must be before filter.createdBefore',
  ),
  invalid_campaign_transition: e(
    409,
    'a campaign action its status does not allow',
    (p: { id: string; status: string; allowed: string; what: string }) =>
      `Campaign ${p.id} is ${p.status}: only a ${p.allowed} campaign can be ${p.what}`,
  ),

  // Webhooks.
  endpoint_disabled: e(
    409,
    'replaying deliveries of a disabled endpoint',
    'Webhook endpoint is disabled; enable it (PATCH enabled: true) before replaying deliveries',
  ),

  // Imports.
  invalid_map: e(400, 'a column map that does not parse', (p: Detail) => p.detail),
  invalid_encoding: e(
    400,
    "the file's header is not text in the encoding given",
    (p: { reason: string }) => `The CSV file's header cannot be read: ${p.reason}`,
  ),
  header_too_long: e(
    400,
    'a header line over the limit',
    (p: { mib: number; bytes: number }) =>
      `The CSV file's header line is too long: it may be at most ${p.mib} MiB (${p.bytes} bytes); is a quote left open?`,
  ),
  empty_file: e(400, 'an empty CSV file', 'The CSV file is empty: it needs a header line naming its columns'),
  idempotency_not_supported: e(
    400,
    'an Idempotency-Key on an import',
    'Idempotency-Key is not supported on POST /v1/imports: sending the same file again creates nothing new',
  ),

  // The console's session API.
  unauthorized: e(
    401,
    'no console session, or one that ended',
    'Not signed in, or the session has ended: sign in again.',
  ),
  invalid_login: e(401, 'a wrong email or password', 'Invalid email or password.'),
  csrf: e(
    403,
    'a console write without its x-csrf-token',
    'Missing or wrong x-csrf-token header: send the csrfToken from /console/api/session.',
  ),
  admin_only: e(403, 'an admin action by another role', 'Only an admin may do this.'),
  scope_cli_only: e(
    400,
    'a key scope the console may not grant',
    (p: { scope: string }) =>
      `The scope ${p.scope} is granted only from the command line (parley keys create --scopes ${p.scope}), not from the console`,
  ),
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** What a code's template needs: nothing for a fixed text, its values otherwise (optional where it has a plain form). */
export type ErrorParams<C extends ErrorCode> = (typeof ERRORS)[C]['message'] extends (...args: infer A) => string
  ? A
  : [];

/** The codes whose template has a plain form, needing no values. */
export type PlainErrorCode = { [C in ErrorCode]: [] extends ErrorParams<C> ? C : never }[ErrorCode];

export function errorMessage<C extends ErrorCode>(code: C, ...params: ErrorParams<C>): string {
  const template = ERRORS[code].message as string | ((p?: unknown) => string);
  return typeof template === 'string' ? template : template(params[0]);
}

/** Codes any route can answer, whatever it does: how the request was sent, authenticated, throttled or sized. */
export const GENERIC_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'invalid_json',
  'bad_content_length',
  'bad_url',
  'bad_request',
  'forbidden',
  'not_found',
  'body_too_large',
  'unsupported_media_type',
  'rate_limited',
];
