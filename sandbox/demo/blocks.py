"""StreamField blocks of the demo site: nested structs, lists and streams with rich text."""

from wagtail import blocks


class LinkBlock(blocks.StructBlock):
    text = blocks.CharBlock()
    url = blocks.URLBlock()

    class Meta:
        template = "demo/blocks/link.html"


class QuoteBlock(blocks.StructBlock):
    quote = blocks.TextBlock()
    attribution = blocks.CharBlock(required=False)

    class Meta:
        template = "demo/blocks/quote.html"


class CardBlock(blocks.StructBlock):
    heading = blocks.CharBlock()
    body = blocks.RichTextBlock(features=["bold", "italic", "link"])
    link = LinkBlock(required=False)

    class Meta:
        template = "demo/blocks/card.html"


class SectionBlock(blocks.StructBlock):
    heading = blocks.CharBlock()
    content = blocks.StreamBlock(
        [
            ("paragraph", blocks.RichTextBlock()),
            ("quote", QuoteBlock()),
            ("facts", blocks.ListBlock(blocks.CharBlock(), label="Key facts")),
        ]
    )
    cards = blocks.ListBlock(CardBlock())

    class Meta:
        template = "demo/blocks/section.html"


class BodyBlock(blocks.StreamBlock):
    heading = blocks.CharBlock(form_classname="title")
    paragraph = blocks.RichTextBlock()
    quote = QuoteBlock()
    section = SectionBlock()
    links = blocks.ListBlock(LinkBlock())
