import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Store } from './connect.js';
import * as core from './migrations/0001_core.js';
import * as delivery from './migrations/0002_delivery.js';
import * as conversations from './migrations/0003_conversations.js';
import * as sendingNumbers from './migrations/0004_sending_numbers.js';
import * as instanceSecrets from './migrations/0005_instance_secrets.js';
import * as agentTurns from './migrations/0006_agent_turns.js';
import * as compliance from './migrations/0007_compliance.js';
import * as leadListing from './migrations/0008_lead_listing.js';
import * as followUps from './migrations/0009_follow_ups.js';
import * as timeline from './migrations/0011_timeline.js';
import * as leadEmailOrder from './migrations/0013_lead_email_order.js';
import * as imports from './migrations/0014_imports.js';
import * as sendingNumbersPool from './migrations/0015_sending_numbers_pool.js';
import * as campaigns from './migrations/0016_campaigns.js';
import * as consoleUsers from './migrations/0017_console_users.js';
import * as legacySuppressions from './migrations/0018_legacy_suppressions.js';
import * as importHeartbeat from './migrations/0019_import_heartbeat.js';
import * as pacingDepartures from './migrations/0020_pacing_departures.js';
import * as punctualJobs from './migrations/0021_punctual_jobs.js';
import * as leadEmailPrefix from './migrations/0022_lead_email_prefix.js';
import * as erasureReach from './migrations/0025_erasure_reach.js';
import * as sendAttempts from './migrations/0026_send_attempts.js';
import * as messageReplyTo from './migrations/0027_message_reply_to.js';
import * as calls from './migrations/0028_calls.js';
import * as appointments from './migrations/0029_appointments.js';
import * as handoffs from './migrations/0030_handoffs.js';
import * as deliveryClasses from './migrations/0031_delivery_classes.js';
import * as analytics from './migrations/0032_analytics.js';
import * as importWarnings from './migrations/0033_import_warnings.js';
import * as analyticsOverallMonths from './migrations/0036_analytics_overall_months.js';
import * as openingCalls from './migrations/0037_opening_calls.js';
import * as messageSubject from './migrations/0038_message_subject.js';
import * as deliveryAnswers from './migrations/0039_delivery_answers.js';
import * as messageCalls from './migrations/0040_message_calls.js';
import * as analyticsPending from './migrations/0043_analytics_pending.js';
import * as analyticsDayPercentiles from './migrations/0044_analytics_day_percentiles.js';
import * as eventLead from './migrations/0045_event_lead.js';
import * as settingsNumberRules from './migrations/0047_settings_number_rules.js';
import * as analyticsVariantsQuarters from './migrations/0049_analytics_variants_quarters.js';

/** Migrations are listed here in order (no directory scan: works from src and dist alike). */
export const migrations: Record<string, Migration> = {
  '0001_core': core,
  '0002_delivery': delivery,
  '0003_conversations': conversations,
  '0004_sending_numbers': sendingNumbers,
  '0005_instance_secrets': instanceSecrets,
  '0006_agent_turns': agentTurns,
  '0007_compliance': compliance,
  '0008_lead_listing': leadListing,
  '0009_follow_ups': followUps,
  '0011_timeline': timeline,
  '0013_lead_email_order': leadEmailOrder,
  '0014_imports': imports,
  '0015_sending_numbers_pool': sendingNumbersPool,
  '0016_campaigns': campaigns,
  '0017_console_users': consoleUsers,
  '0018_legacy_suppressions': legacySuppressions,
  '0019_import_heartbeat': importHeartbeat,
  '0020_pacing_departures': pacingDepartures,
  '0021_punctual_jobs': punctualJobs,
  '0022_lead_email_prefix': leadEmailPrefix,
  '0025_erasure_reach': erasureReach,
  '0026_send_attempts': sendAttempts,
  '0027_message_reply_to': messageReplyTo,
  '0028_calls': calls,
  '0029_appointments': appointments,
  '0030_handoffs': handoffs,
  '0031_delivery_classes': deliveryClasses,
  '0032_analytics': analytics,
  '0033_import_warnings': importWarnings,
  '0036_analytics_overall_months': analyticsOverallMonths,
  '0037_opening_calls': openingCalls,
  '0038_message_subject': messageSubject,
  '0039_delivery_answers': deliveryAnswers,
  '0040_message_calls': messageCalls,
  '0043_analytics_pending': analyticsPending,
  '0044_analytics_day_percentiles': analyticsDayPercentiles,
  '0045_event_lead': eventLead,
  '0047_settings_number_rules': settingsNumberRules,
  '0049_analytics_variants_quarters': analyticsVariantsQuarters,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(store: Store): Promise<string[]> {
  const migrator = new Migrator({ db: store.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
