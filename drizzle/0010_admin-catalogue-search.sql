-- The back office's book search: a substring of the title, the author or the slug, in any case. A trigram
-- index answers `like '%…%'` on this one expression (written exactly so in admin-books.server.ts) without
-- reading every book; pg_trgm is created in 0002_search.sql.
CREATE INDEX "books_admin_search_idx" ON "books" USING gin ((lower("title" || ' ' || "author" || ' ' || "slug")) gin_trgm_ops);
