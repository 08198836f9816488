// cli-progress 3 ships no types: the part the import command uses.
declare module 'cli-progress' {
  export interface Options {
    format?: string;
    stream?: NodeJS.WritableStream;
    hideCursor?: boolean;
    clearOnComplete?: boolean;
    etaBuffer?: number;
    fps?: number;
  }
  export class SingleBar {
    constructor(options: Options, preset?: unknown);
    start(total: number, start: number, payload?: Record<string, unknown>): void;
    update(value: number, payload?: Record<string, unknown>): void;
    stop(): void;
  }
  export const Presets: { shades_classic: unknown; legacy: unknown; rect: unknown };
  const cliProgress: { SingleBar: typeof SingleBar; Presets: typeof Presets };
  export default cliProgress;
}
