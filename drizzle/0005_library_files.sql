CREATE TABLE "book_files" (
	"book_id" uuid NOT NULL,
	"format" text NOT NULL,
	"storage_key" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"source_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "book_files_book_id_format_pk" PRIMARY KEY("book_id","format"),
	CONSTRAINT "book_files_format_check" CHECK ("book_files"."format" in ('pdf', 'epub', 'sample')),
	CONSTRAINT "book_files_size_check" CHECK ("book_files"."size_bytes" > 0)
);
--> statement-breakpoint
ALTER TABLE "library_items" ADD COLUMN "download_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "library_items" ADD COLUMN "last_downloaded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "book_files" ADD CONSTRAINT "book_files_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;