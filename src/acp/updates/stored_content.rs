//! A stored file or resource part as the content block the editor sent it as, so a replayed
//! user message shows its images and resources again; the pages an answer cites as its list.

use agent_client_protocol::v1::schema::{
    BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent,
    ResourceLink, TextResourceContents,
};

use crate::message::PartBody;

/// A stored file or resource part as the content block it came from, for replay.
pub fn content_block(body: &PartBody) -> Option<ContentBlock> {
    Some(match body {
        PartBody::File {
            mime,
            url,
            filename,
        } => {
            let data = url.split_once(";base64,")?.1.to_owned();
            if mime.starts_with("image/") {
                ContentBlock::Image(ImageContent::new(data, mime.clone()).uri(filename.clone()))
            } else {
                let uri = filename.clone().unwrap_or_default();
                ContentBlock::Resource(EmbeddedResource::new(
                    EmbeddedResourceResource::BlobResourceContents(
                        BlobResourceContents::new(data, uri).mime_type(mime.clone()),
                    ),
                ))
            }
        }
        PartBody::Resource {
            uri,
            name,
            mime,
            text: Some(text),
        } => {
            let _ = name;
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(
                    TextResourceContents::new(text.clone(), uri.clone()).mime_type(mime.clone()),
                ),
            ))
        }
        PartBody::Resource {
            uri, name, mime, ..
        } => ContentBlock::ResourceLink(
            ResourceLink::new(name.clone().unwrap_or_else(|| uri.clone()), uri.clone())
                .mime_type(mime.clone()),
        ),
        body @ PartBody::Sources { .. } => ContentBlock::from(body.sources_text()?),
        _ => return None,
    })
}
