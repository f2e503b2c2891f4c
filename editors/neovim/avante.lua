-- avante.nvim: Tandem as an ACP provider, chosen as the provider.
require("avante").setup({
  provider = "tandem",
  acp_providers = {
    ["tandem"] = {
      command = "tandem",
      args = { "acp" },
      env = {
        -- Hand a key through from your shell (or run `tandem auth login` once instead).
        OPENAI_API_KEY = os.getenv("OPENAI_API_KEY"),
        TANDEM_LOG_FILE = "/tmp/tandem.log",
      },
    },
  },
})
