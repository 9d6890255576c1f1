import { PORTAL_PAGES } from '../../core/portal/pages.js';
import { Layout } from '../components/layout.js';
import { Link } from '../router.js';

export function NotFoundPage() {
  return (
    <Layout title="Page not found">
      <p>
        There is no such page. <Link href={PORTAL_PAGES.exposure}>Search exposure</Link> instead.
      </p>
    </Layout>
  );
}
