ALTER TABLE "books" ADD COLUMN "sales_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "books" ADD CONSTRAINT "books_sales_count_check" CHECK ("books"."sales_count" >= 0);