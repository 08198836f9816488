export const BEGIN: string;
export const END: string;
export const ROOTS: string[];
export interface CruisedModule {
  source: string;
  dependencies: { resolved: string }[];
}
export interface ArchitectureConfig {
  mutualFolderExemptions: Record<string, string>;
  foldersInCycle: { folders: string[]; why: string };
  publicSurfaces: Record<string, string[]>;
}
export function folderOf(path: string): string | null;
export function cruise(): Promise<CruisedModule[]>;
export function folderEdges(modules?: CruisedModule[]): Promise<Map<string, Set<string>>>;
export function importedFromOutside(modules: CruisedModule[]): Map<string, Set<string>>;
export function mutualPairs(edges: Map<string, Set<string>>): string[];
export function cycles(edges: Map<string, Set<string>>): string[][];
export function mermaid(edges: Map<string, Set<string>>): string;
export function cycleLine(folders: string[]): string;
export function surfacesTable(surfaces: Record<string, string[]>): string;
export function withSection(doc: string, name: string, text: string): string;
export function withPicture(doc: string, picture: string): string;
export function page(doc: string, edges: Map<string, Set<string>>, config: ArchitectureConfig): string;
export function config(): ArchitectureConfig;
