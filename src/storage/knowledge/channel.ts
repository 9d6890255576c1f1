/** The PostgreSQL channel announcing commits that changed CPE names or product criteria. */
export const KNOWLEDGE_CHANGES_CHANNEL = 'vulnscope_knowledge_changes';
