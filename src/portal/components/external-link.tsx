/** The URL when it is http: or https: (text from feeds and scans may hold `javascript:` or worse). */
export function safeHttpUrl(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** A link to elsewhere when the URL is http(s), else the text alone; never sends a referrer. */
export function ExternalLink({ url, label }: { url: string; label?: string }) {
  const safe = safeHttpUrl(url);
  if (!safe) return <span class="url">{label ?? url}</span>;
  return (
    <a href={safe} rel="noopener noreferrer" target="_blank">
      {label ?? url}
    </a>
  );
}
