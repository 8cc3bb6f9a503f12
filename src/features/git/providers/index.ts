import type { GitProvider } from '../../../contracts/git/git.events.ts';
import { githubRepository } from './github.ts';

export { githubInstallationToken } from './github.ts';
import { gitlabRepository } from './gitlab.ts';
import type { ProviderAccess, RepositoryPort } from './port.ts';

export type { ProviderAccess, RepositoryFile, RepositoryPort } from './port.ts';

/** The repository port of a provider. */
export const repositoryOf = (provider: GitProvider, access: ProviderAccess): RepositoryPort =>
  provider === 'github' ? githubRepository(access) : gitlabRepository(access);
