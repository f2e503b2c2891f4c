-- CodeCompanion.nvim: Tandem as an ACP adapter, and the default for chat.
-- Put this in your Neovim config (or the `opts` of your plugin manager's spec).
require("codecompanion").setup({
  adapters = {
    acp = {
      tandem = function()
        -- Start from CodeCompanion's generic ACP adapter shape (the OpenCode one) and
        -- launch Tandem instead.
        return require("codecompanion.adapters").extend("opencode", {
          name = "tandem",
          formatted_name = "Tandem",
          commands = {
            default = { "tandem", "acp" },
          },
          env = {
            TANDEM_LOG_FILE = "/tmp/tandem.log",
          },
        })
      end,
    },
  },
  interactions = {
    chat = {
      adapter = "tandem",
    },
  },
})
