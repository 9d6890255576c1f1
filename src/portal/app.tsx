import type { FunctionComponent } from 'preact';
import { PORTAL_PAGES } from '../core/portal/pages.js';
import { AdvisoriesPage } from './pages/advisories.js';
import { AdvisoryPage } from './pages/advisory.js';
import { CpePage } from './pages/cpe.js';
import { FeedsPage } from './pages/feeds.js';
import { ExposurePage } from './pages/exposure/index.js';
import { HostPage } from './pages/host.js';
import { NotFoundPage } from './pages/not-found.js';
import { SignInPage } from './pages/sign-in.js';
import { TokensPage } from './pages/tokens.js';
import { useLocation } from './router.js';

/** Each portal path's page (the server serves the same shell for every path in PORTAL_PAGES). */
const PAGES: Record<string, FunctionComponent> = {
  [PORTAL_PAGES.signIn]: SignInPage,
  [PORTAL_PAGES.advisories]: AdvisoriesPage,
  [PORTAL_PAGES.advisory]: AdvisoryPage,
  [PORTAL_PAGES.cpe]: CpePage,
  [PORTAL_PAGES.feeds]: FeedsPage,
  [PORTAL_PAGES.tokens]: TokensPage,
  [PORTAL_PAGES.exposure]: ExposurePage,
  [PORTAL_PAGES.host]: HostPage,
};

export function App() {
  const { path } = useLocation();
  const Page = PAGES[path] ?? NotFoundPage;
  return <Page />;
}
