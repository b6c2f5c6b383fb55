CREATE INDEX "books_title_id_idx" ON "books" USING btree ("title","id");--> statement-breakpoint
CREATE INDEX "books_created_at_id_idx" ON "books" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "books_price_id_idx" ON "books" USING btree ("price_cents","id");--> statement-breakpoint
CREATE INDEX "books_status_created_at_id_idx" ON "books" USING btree ("status","created_at","id");