import type { Config } from '../platform/config.js';
import type { Deps } from '../platform/deps.js';
import type { ChannelName } from '../lead-records/channels.js';
import { logAdapter, type ChannelAdapter } from '../providers/channel-adapter.js';
import { createEmailAdapter } from './email.js';
import { twilioAdapters } from '../providers/twilio/adapters.js';

/**
 * Which adapter carries each channel, decided once per configuration: a
 * provider adapter when its settings are present, else the zero-setup `log`
 * adapter. Only channels/outbound.ts asks for an adapter.
 */
function build(
  config: Config,
  db: Deps['db'],
  digests: Deps['digests'],
  log: Deps['log'],
): Record<ChannelName, ChannelAdapter> {
  const twilio = config.twilio ? twilioAdapters({ ...config, twilio: config.twilio }) : undefined;
  const logged = logAdapter(log);
  return {
    sms: twilio?.sms ?? logged,
    voice: twilio?.voice ?? logged,
    // Email reads its link key and the organization's name from the database at send time.
    email: config.smtpUrl ? createEmailAdapter({ ...config, smtpUrl: config.smtpUrl }, db, digests) : logged,
  };
}

const cache = new WeakMap<Config, Record<ChannelName, ChannelAdapter>>();

export function adapterFor(
  { config, db, digests, log }: Pick<Deps, 'config' | 'db' | 'digests' | 'log'>,
  channel: ChannelName,
): ChannelAdapter {
  let adapters = cache.get(config);
  if (!adapters) {
    adapters = build(config, db, digests, log);
    cache.set(config, adapters);
  }
  return adapters[channel];
}
