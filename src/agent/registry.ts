import type { Config } from '../platform/config.js';
import { OpenAiProvider } from './openai.js';
import type { AgentProvider } from './provider.js';
import { scriptedProvider } from './scripted.js';

const cache = new WeakMap<Config, AgentProvider>();

/** The agent the configuration names (PARLEY_AI_PROVIDER), built once per configuration. */
export function agentFor(config: Config): AgentProvider {
  let provider = cache.get(config);
  if (!provider) {
    provider = config.ai.provider === 'openai' ? new OpenAiProvider(config.ai) : scriptedProvider;
    cache.set(config, provider);
  }
  return provider;
}
