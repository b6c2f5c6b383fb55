CREATE TABLE "book_contents" (
	"book_id" uuid PRIMARY KEY NOT NULL,
	"edition" integer NOT NULL,
	"source_hash" text NOT NULL,
	"word_count" integer NOT NULL,
	"chapters" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "book_contents_word_count_check" CHECK ("book_contents"."word_count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "book_files" ADD COLUMN "page_count" integer;--> statement-breakpoint
ALTER TABLE "book_contents" ADD CONSTRAINT "book_contents_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_files" ADD CONSTRAINT "book_files_page_count_check" CHECK ("book_files"."page_count" is null or "book_files"."page_count" > 0);