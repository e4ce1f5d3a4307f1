package x402

import "strings"

// Asset is a token a price is paid in.
type Asset struct {
	Address  string
	Decimals int
	Symbol   string
	// Extra is what the scheme needs to know about the token; for EVM
	// EIP-3009 tokens, the EIP-712 domain name and version.
	Extra map[string]any
}

// defaultAssets is the stablecoin a decimal price means on each EVM
// network, as in the x402 reference SDK (@x402/evm 2.27 default assets;
// EIP-3009 tokens only, so the exact scheme can pull the payment with a
// signed transferWithAuthorization).
var defaultAssets = map[string]Asset{
	"eip155:8453":     usdc("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USD Coin"), // Base
	"eip155:84532":    usdc("0x036CbD53842c5426634e7929541eC2318f3dCF7e", "USDC"),     // Base Sepolia
	"eip155:1":        usdc("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "USD Coin"), // Ethereum
	"eip155:43114":    usdc("0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", "USD Coin"), // Avalanche C-Chain
	"eip155:137":      usdc("0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", "USD Coin"), // Polygon
	"eip155:42161":    usdc("0xaf88d065e77c8cC2239327C5EDb3A432268e5831", "USD Coin"), // Arbitrum One
	"eip155:421614":   usdc("0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d", "USD Coin"), // Arbitrum Sepolia
	"eip155:143":      usdc("0x754704Bc059F8C67012fEd69BC8A327a5aafb603", "USDC"),     // Monad
	"eip155:42220":    usdc("0xcebA9300f2b948710d2653dD7B07f33A8B32118C", "USDC"),     // Celo
	"eip155:11142220": usdc("0x01C5C0122039549AD1493B8220cABEdD739BC44E", "USDC"),     // Celo Sepolia
	"eip155:1329":     usdc("0xe15fC38F6D8c56aF07bbCBe3BAf5708A2Bf42392", "USDC"),     // Sei
	"eip155:1328":     usdc("0x4fCF1784B31630811181f670Aea7A7bEF803eaED", "USDC"),     // Sei testnet
}

func usdc(addr, name string) Asset {
	return Asset{Address: addr, Decimals: 6, Symbol: "USDC", Extra: map[string]any{"name": name, "version": "2"}}
}

// DefaultAsset returns the stablecoin a decimal price means on network.
func DefaultAsset(network string) (Asset, bool) {
	a, ok := defaultAssets[network]
	return a, ok
}

// knownAsset returns the default asset of network if its address is addr
// (EVM addresses compare case-insensitively).
func knownAsset(network, addr string) (Asset, bool) {
	a, ok := defaultAssets[network]
	if ok && strings.EqualFold(a.Address, addr) {
		return a, true
	}
	return Asset{}, false
}
