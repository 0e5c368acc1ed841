/* The Age Provider block in the editor: a container for any blocks, saved as they are. What visitors get is decided
 * on the server (the block's render callback), so nothing of it reaches a visitor who has not verified. No build step:
 * plain script on WordPress's own globals. */
(function (blocks, blockEditor, element) {
	var el = element.createElement;
	var InnerBlocks = blockEditor.InnerBlocks;
	blocks.registerBlockType('age-provider/protected', {
		edit: function () {
			var props = blockEditor.useBlockProps({ className: 'age-provider-editor-part' });
			var title = blocks.getBlockType('age-provider/protected').title;
			return el('div', props, el('p', { className: 'age-provider-editor-label' }, '🔒 ' + title), el(InnerBlocks));
		},
		save: function () {
			return el(InnerBlocks.Content);
		},
	});
})(window.wp.blocks, window.wp.blockEditor, window.wp.element);
