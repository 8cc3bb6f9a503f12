import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { originPatternProblem } from '../../platform/http/cors-origins.ts';
import { CorsOriginInvalid, SiteExists, SiteNotFound } from './site.errors.ts';
import type { SiteCors, SiteEvent, SiteSettings } from '../../contracts/sites/site.events.ts';

/** `deleted`: the site ended; its id is not given again. */
export type SiteState = { exists: false; deleted?: boolean } | { exists: true; name: string; settings: SiteSettings };

/** Create a site. */
export type CreateSite = { type: 'CreateSite'; data: { siteId: string; name: string; createdBy: string; now: string } };
/** Rename a site or change its settings. */
export type UpdateSite = {
  type: 'UpdateSite';
  data: { siteId: string; name?: string; settings?: SiteSettings; now: string };
};
/** End a site (a preview's teardown). */
export type DeleteSite = { type: 'DeleteSite'; data: { siteId: string; reason: string; by: string; now: string } };
export type SiteCommand = CreateSite | UpdateSite | DeleteSite;

export const siteDecider: Decider<SiteState, SiteCommand, SiteEvent> = {
  initialState: () => ({ exists: false }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'SiteCreated':
        return { exists: true, name: e.data.name, settings: e.data.settings };
      case 'SiteUpdated':
        if (!s.exists) return s;
        return { exists: true, name: e.data.name ?? s.name, settings: { ...s.settings, ...e.data.settings } };
      case 'SiteDeleted':
        return { exists: false, deleted: true };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    switch (cmd.type) {
      case 'CreateSite':
        if (s.exists || s.deleted) throw new SiteExists({ siteId: cmd.data.siteId });
        return [
          {
            type: 'SiteCreated',
            data: {
              siteId: cmd.data.siteId,
              name: cmd.data.name,
              settings: {},
              createdBy: cmd.data.createdBy,
              at: cmd.data.now,
            },
          },
        ];
      case 'UpdateSite': {
        if (!s.exists) throw new SiteNotFound({ siteId: cmd.data.siteId });
        checkCors(cmd.data.settings?.cors);
        const name = cmd.data.name !== undefined && cmd.data.name !== s.name ? cmd.data.name : undefined;
        const changed = Object.entries(cmd.data.settings ?? {}).filter(
          ([k, v]) => JSON.stringify(v) !== JSON.stringify(s.settings[k as keyof SiteSettings]),
        );
        if (name === undefined && changed.length === 0) return [];
        const settings = changed.length ? (Object.fromEntries(changed) as SiteSettings) : undefined;
        return [{ type: 'SiteUpdated', data: { siteId: cmd.data.siteId, name, settings, at: cmd.data.now } }];
      }
      case 'DeleteSite': {
        if (!s.exists) return [];
        const { now, ...rest } = cmd.data;
        return [{ type: 'SiteDeleted', data: { ...rest, at: now } }];
      }
      default:
        return assertNever(cmd);
    }
  },
};

/** Every origin pattern of a `cors` setting is one (a site never sets `*`, nor a path, nor a wildcard mid-name). */
function checkCors(cors: SiteCors | undefined): void {
  cors?.origins.forEach((pattern, index) => {
    const problem = originPatternProblem(pattern);
    if (problem) throw new CorsOriginInvalid({ index, problem });
  });
}
