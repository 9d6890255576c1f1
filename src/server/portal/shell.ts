import type { PortalAssets } from './assets.js';

/**
 * The one HTML page every portal path answers with: it holds nothing from the request, so no
 * query parameter can be reflected into it; the script renders the page the path names.
 */
export function shellHtml(assets: PortalAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vulnscope</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/${assets.style}">
<script type="module" src="/assets/${assets.script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The Vulnscope portal needs JavaScript.</noscript>
</body>
</html>
`;
}
